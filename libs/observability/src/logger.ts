import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';

/** Field paths that may hold credentials or secrets; they are never written out. */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'api_key',
  'access_token',
  'refresh_token',
  '*.access_token',
  '*.refresh_token',
];

export function createLogger(
  service: string,
  level: string,
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level,
      base: { service },
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** Lets Nest's own logging (start-up, errors) go through the same structured JSON logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    const stack = context ? stackOrContext : undefined;
    this.logger.error({ context: context ?? stackOrContext, stack }, stringify(message));
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: pino.Level, message: unknown, context?: string): void {
    this.logger[level]({ context }, stringify(message));
  }
}

function stringify(message: unknown): string {
  return typeof message === 'string' ? message : JSON.stringify(message);
}
