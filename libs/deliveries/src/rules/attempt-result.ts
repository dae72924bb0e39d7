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
