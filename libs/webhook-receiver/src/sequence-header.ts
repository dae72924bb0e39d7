import type { IncomingHttpHeaders } from 'node:http';

/** Node lowercases incoming header names (this is DELIVERY_HEADERS.sequence of @svc/contracts). */
export const SEQUENCE_HEADER = 'x-svc-sequence';

/**
 * The delivery's number among its endpoint's deliveries (ADR 0045), or undefined when it has none
 * (test events carry no `X-SVC-Sequence`) or the value is not a positive integer.
 */
export function sequenceOf(headers: IncomingHttpHeaders): number | undefined {
  const value = headers[SEQUENCE_HEADER];
  if (typeof value !== 'string' || !/^[1-9]\d{0,15}$/.test(value)) {
    return undefined;
  }
  const sequence = Number(value);
  return Number.isSafeInteger(sequence) ? sequence : undefined;
}
