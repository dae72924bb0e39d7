import type { EndpointOrdering, ReceiverAuthType, SignatureScheme } from '../api/api-types';

/**
 * How the console writes numbers, times and states. Pure and locale-independent, so that every
 * page (and test) says the same thing the same way. Times are in UTC and say so: a security
 * team's incident timeline is in UTC, and so are the API's dates.
 */

/** `2026-03-01 12:00:05 UTC`, or an em dash for no time. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) {
    return '—';
  }
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) {
    return iso;
  }
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `14:00` of an hour's bucket (UTC), with the day when the chart spans several. */
export function formatHour(iso: string, withDay: boolean): string {
  const text = new Date(iso).toISOString();
  return withDay ? `${text.slice(5, 10)} ${text.slice(11, 16)}` : text.slice(11, 16);
}

/** A success rate (0 to 1) as a percentage: `99.5%`, `100%`; `no attempts` when null. */
export function formatRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) {
    return 'no attempts';
  }
  const percent = Math.round(rate * 1000) / 10;
  return `${percent}%`;
}

/** `850 ms`, `1.2 s`; an em dash when there is none. */
export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) {
    return '—';
  }
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** `1,234` */
export function formatCount(count: number): string {
  return Math.round(count)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `unlimited`, or `50 per second`. */
export function formatRateLimit(perSecond: number | null | undefined): string {
  return perSecond ? `${formatCount(perSecond)} per second` : 'unlimited';
}

/** `HMAC-SHA256` or `Ed25519`, as receivers' libraries name them. */
export function formatSignatureScheme(scheme: SignatureScheme): string {
  return scheme === 'ed25519' ? 'Ed25519' : 'HMAC-SHA256';
}

/** `Any order`, or `One at a time, in order (FIFO)` (ADR 0045). */
export function formatOrdering(ordering: EndpointOrdering): string {
  return ordering === 'fifo' ? 'One at a time, in order (FIFO)' : 'Any order';
}

/** A (possibly long) text cut to `max` characters with an ellipsis, for table cells. */
export function excerpt(text: string | null | undefined, max = 120): string {
  if (!text) {
    return '';
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const ERROR_KIND_WORDS: Record<string, string> = {
  http_status: 'the receiver answered with an error status',
  redirect: 'the receiver answered with a redirect (not followed)',
  timeout: 'no answer in time',
  connection_refused: 'connection refused',
  connection_reset: 'connection reset',
  dns: 'the host name did not resolve',
  tls: 'TLS handshake or certificate failed',
  blocked_address: 'the address is not allowed (private or reserved)',
  secret_unavailable: 'the signing secret could not be read',
  other: 'another error',
};

/** An attempt's error kind in words (`timeout` → `no answer in time`). */
export function describeErrorKind(kind: string | null | undefined): string {
  if (!kind) {
    return '';
  }
  return ERROR_KIND_WORDS[kind] ?? kind.replace(/_/g, ' ');
}

/**
 * Why an attempt failed, in one line: `HTTP 500`, `no answer in time`, `TLS handshake or
 * certificate failed: certificate has expired`. The message of an error status only repeats the
 * status, so it is left out; `withStatus: false` where the status has its own column.
 */
export function describeFailure(
  failure: {
    status_code: number | null;
    error_kind: string | null;
    error_message: string | null;
  },
  withStatus = true,
): string {
  const isStatus = failure.error_kind === 'http_status';
  const parts = [
    withStatus && failure.status_code !== null ? `HTTP ${failure.status_code}` : null,
    isStatus && (withStatus || failure.status_code !== null)
      ? null
      : describeErrorKind(failure.error_kind),
    isStatus ? null : failure.error_message,
  ].filter((part): part is string => Boolean(part));
  return parts.join(': ');
}

const AUTH_TYPE_WORDS: Record<ReceiverAuthType, string> = {
  headers: 'Extra headers',
  basic: 'HTTP Basic',
  oauth2_client_credentials: 'OAuth 2.0 client credentials',
  mtls: 'Mutual TLS (client certificate)',
};

/** A receiver authentication's type in words (ADR 0048): `HTTP Basic`, `Mutual TLS …`. */
export function formatReceiverAuthType(type: ReceiverAuthType): string {
  return AUTH_TYPE_WORDS[type] ?? type;
}

/** How close a client certificate is to its end: `expired`, `soon` (within 30 days) or `valid`. */
export type CertificateExpiry = 'expired' | 'soon' | 'valid';

const SOON_MS = 30 * 86_400_000;

/** Whether the certificate valid until `notAfter` has expired at `now`, or will within 30 days. */
export function certificateExpiry(notAfter: string, now: Date): CertificateExpiry {
  const end = new Date(notAfter).getTime();
  if (end <= now.getTime()) {
    return 'expired';
  }
  return end - now.getTime() <= SOON_MS ? 'soon' : 'valid';
}

/**
 * `10s, 1m (3 attempts)`, or `default` for the deployment's: a delivery gets one attempt more
 * than the schedule has entries.
 */
export function formatRetrySchedule(schedule: readonly string[] | null | undefined): string {
  if (!schedule || schedule.length === 0) {
    return 'default';
  }
  return `${schedule.join(', ')} (${schedule.length + 1} attempts)`;
}

/** `5 seconds`, `1 second`, or `default` for the deployment's. */
export function formatTimeout(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) {
    return 'default';
  }
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}
