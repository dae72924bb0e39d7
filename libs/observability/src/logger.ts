import { LoggerService } from '@nestjs/common';
import { isSpanContextValid, trace } from '@opentelemetry/api';
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
  // A portal link is exchanged as `token` and answered with `session_token` (ADR 0042).
  'token',
  'session_token',
  '*.token',
  '*.session_token',
];

/**
 * Anything in a URL shaped like a credential: API keys, refresh tokens, portal links and portal
 * sessions (`svc_live_`, `svc_test_`, `svc_rt_`, `svc_pl_`, `svc_ps_` and what follows) and
 * JWT-looking segments (`eyJ…`).
 */
const CREDENTIAL_IN_URL =
  /svc_(?:live|test|rt|pl|ps)_[^/?#&;=,\s]*|eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*){0,2}/g;

/** The URL (or path) with anything shaped like a key or token replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(CREDENTIAL_IN_URL, '[redacted]');
}

/** Log fields that hold a URL or path; credentials in them are redacted by every logger. */
const URL_FIELDS = ['url', 'path', 'instance', 'route'];

function redactUrlFields(object: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const field of URL_FIELDS) {
    const value = object[field];
    if (typeof value === 'string') {
      const redacted = redactUrl(value);
      if (redacted !== value) {
        copy ??= { ...object };
        copy[field] = redacted;
      }
    }
  }
  return copy ?? object;
}

/**
 * `trace_id`, `span_id` and `trace_flags` of the active OpenTelemetry span, on every line logged
 * while one is active (the field names of the OpenTelemetry log data model, as
 * @opentelemetry/instrumentation-pino writes them), so logs and traces join up.
 */
export function activeSpanFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return {};
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    trace_flags: `0${context.traceFlags.toString(16)}`.slice(-2),
  };
}

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
      formatters: { level: (label) => ({ level: label }), log: redactUrlFields },
      mixin: activeSpanFields,
      // Errors are logged as {type, message, stack} (and their cause), never as `{}`.
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
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
    if (message instanceof Error) {
      this.logger.error({ context: context ?? stackOrContext, err: message }, message.message);
      return;
    }
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
    if (message instanceof Error) {
      this.logger[level]({ context, err: message }, message.message);
      return;
    }
    this.logger[level]({ context }, stringify(message));
  }
}

function stringify(message: unknown): string {
  return typeof message === 'string' ? redactUrl(message) : JSON.stringify(message);
}
