import type { DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { LocalStackError } from './settings';

/**
 * How `npm start` writes its log (ADR 0038): `readable` for a person at a terminal (one line per
 * entry, time, level, app and message, the entry's fields after it on the same line; an error's
 * stack below it), `json` as every app writes it in production. Readable by default when stdout
 * is a terminal, JSON otherwise (piped into a file or a log shipper); `--log-format=json` or
 * `--log-format=readable` asks for one or the other.
 */
export type LogFormat = 'readable' | 'json';

const FLAG = '--log-format=';

export function chooseLogFormat(argv: readonly string[], stdoutIsTerminal: boolean): LogFormat {
  const asked = argv.filter((argument) => argument.startsWith(FLAG)).pop();
  if (asked === undefined) {
    return stdoutIsTerminal ? 'readable' : 'json';
  }
  const format = asked.slice(FLAG.length);
  if (format !== 'readable' && format !== 'json') {
    throw new LocalStackError(`${asked}: the log format is readable or json`);
  }
  return format;
}

/**
 * What Nest says at info level while it assembles an app: a line per module, controller and
 * route (about ninety for the three apps). Readable output leaves them out; JSON keeps them, and
 * LOG_LEVEL=debug brings them back at a terminal too.
 */
const NEST_ASSEMBLY = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/** Fields every line has, shown in the line's head or not at all. */
const SHOWN_IN_HEAD = 'service,context,pid,hostname';

export interface ReadableOptions {
  /** Where the lines go (process.stdout). */
  output: { write(text: string): unknown };
  colorize: boolean;
  /** The log level in force: at debug or trace Nest's assembly lines are kept. */
  level: string;
}

/**
 * A pino destination that writes each JSON line as a readable one, synchronously (pino-pretty's
 * prettyFactory, in this process: no worker thread), so that a banner written to stdout after a
 * logger's last line stays after it.
 */
export function readableDestination(options: ReadableOptions): DestinationStream {
  const prettify = prettyFactory({
    colorize: options.colorize,
    messageKey: 'message',
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: SHOWN_IN_HEAD,
    singleLine: true,
    messageFormat: '{service}{if context} ({context}){end}: {message}',
  });
  const keepAssembly = options.level === 'debug' || options.level === 'trace';
  return {
    write(line: string) {
      if (!keepAssembly && isNestAssembly(line)) {
        return;
      }
      options.output.write(prettify(line));
    },
  };
}

function isNestAssembly(line: string): boolean {
  try {
    const entry = JSON.parse(line) as { level?: unknown; context?: unknown };
    return entry.level === 'info' && NEST_ASSEMBLY.has(String(entry.context));
  } catch {
    return false;
  }
}
