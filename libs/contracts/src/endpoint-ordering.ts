/**
 * In what order an endpoint gets its deliveries (issue 32 item 4, ADR 0045). `unordered`: as soon
 * as each is ready, several at once. `fifo`: one at a time in sequence order, the next waiting until
 * the one before has succeeded or been abandoned.
 */
export const ENDPOINT_ORDERINGS = ['unordered', 'fifo'] as const;

export type EndpointOrdering = (typeof ENDPOINT_ORDERINGS)[number];

/** What an endpoint registered without a choice, or before the choice existed, is. */
export const DEFAULT_ENDPOINT_ORDERING: EndpointOrdering = 'unordered';

export function isEndpointOrdering(value: unknown): value is EndpointOrdering {
  return (ENDPOINT_ORDERINGS as readonly unknown[]).includes(value);
}
