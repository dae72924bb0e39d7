/** Why an attempt failed, in words bounded enough to be a metric label. */
export type AttemptErrorKind =
  | 'http_status'
  | 'redirect'
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'dns'
  | 'tls'
  | 'blocked_address'
  | 'secret_unavailable'
  /** The receiver's OAuth token could not be had (ADR 0048): the token endpoint's failure. */
  | 'auth_token'
  | 'other';

export const ATTEMPT_ERROR_KINDS: readonly AttemptErrorKind[] = [
  'http_status',
  'redirect',
  'timeout',
  'connection_refused',
  'connection_reset',
  'dns',
  'tls',
  'blocked_address',
  'secret_unavailable',
  'auth_token',
  'other',
];

/** What one POST came to. */
export interface AttemptResult {
  succeeded: boolean;
  statusCode: number | null;
  errorKind: AttemptErrorKind | null;
  errorMessage: string | null;
  latencyMs: number;
  /** The first bytes of the response body, as text, for the delivery log. */
  responseExcerpt: string | null;
  /** A 429 or 503 that said when to come back (`Retry-After`), in ms from the answer. */
  retryAfterMs?: number | null;
}

/** Statuses whose `Retry-After` the engine honours (RFC 9110 10.2.3: 503; RFC 6585: 429). */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 503];

/**
 * `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP-date (RFC 9110 10.2.3).
 * Null when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(header: string | string[] | undefined, now: Date): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string' || value.trim() === '') {
    return null;
  }
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) {
    return Number(trimmed) * 1000;
  }
  const at = Date.parse(trimmed);
  return Number.isFinite(at) && /[a-z]/i.test(trimmed) ? Math.max(0, at - now.getTime()) : null;
}

/** Spec 6.1: only a 2xx answer is a success; 3xx is not followed and fails like any other. */
export function resultOfStatus(
  statusCode: number,
  latencyMs: number,
  responseExcerpt: string | null,
): AttemptResult {
  const succeeded = statusCode >= 200 && statusCode < 300;
  return {
    succeeded,
    statusCode,
    errorKind: succeeded
      ? null
      : statusCode >= 300 && statusCode < 400
        ? 'redirect'
        : 'http_status',
    errorMessage: succeeded ? null : `answered ${statusCode}`,
    latencyMs,
    responseExcerpt,
  };
}

const ERROR_CODE_KINDS: Record<string, AttemptErrorKind> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  UND_ERR_SOCKET: 'connection_reset',
  UND_ERR_CLOSED: 'connection_reset',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
};

/** Classifies a failure to get a complete answer (no status code to judge by). */
export function errorKindOf(error: unknown): AttemptErrorKind {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const { code, name } = current as { code?: unknown; name?: unknown };
    if (name === 'TimeoutError' || name === 'AbortError') {
      return 'timeout';
    }
    // Before whatever caused it: a token endpoint that was unreachable or blocked is the token's
    // failure, not the receiver's (ADR 0048).
    if (name === 'TokenRequestError') {
      return 'auth_token';
    }
    if (name === 'BlockedAddressError') {
      return 'blocked_address';
    }
    if (typeof code === 'string') {
      if (ERROR_CODE_KINDS[code]) {
        return ERROR_CODE_KINDS[code];
      }
      if (
        code.startsWith('ERR_TLS') ||
        code.startsWith('ERR_SSL') ||
        /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)
      ) {
        return 'tls';
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return 'other';
}
