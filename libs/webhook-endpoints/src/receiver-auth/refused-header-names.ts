/**
 * Header names an endpoint's `headers` auth may not set (ADR 0048), matched regardless of case.
 * Each is either the connection's business rather than the receiver's, or set by the engine
 * itself, where a client's value would replace or contradict what the delivery is.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Our own headers: the signatures and the delivery's identity (X-SVC-*, Standard Webhooks). */
const RESERVED_PREFIXES = ['x-svc-', 'webhook-'];

/**
 * Why `name` may not be set by an endpoint's `headers` auth, in words for the client developer,
 * or null when it may (`Authorization` may: Splunk's HTTP Event Collector needs it).
 */
export function refusedHeaderReason(name: string): string | null {
  const lower = name.toLowerCase();
  if (HOP_BY_HOP.has(lower)) {
    return `${name} is a hop-by-hop header: it concerns the connection, not the receiver, and cannot be set`;
  }
  if (lower === 'host') {
    return 'Host is set from the endpoint URL and cannot be set';
  }
  if (lower === 'expect') {
    return 'Expect would change how the request is sent and cannot be set';
  }
  if (lower.startsWith('content-')) {
    return `${name} describes the body, which the engine sets, and cannot be set`;
  }
  if (lower === 'user-agent') {
    return "User-Agent is the delivery engine's own and cannot be set";
  }
  if (RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
    return `${name} is reserved for the delivery's signature and identity headers (X-SVC-*, webhook-*) and cannot be set`;
  }
  return null;
}
