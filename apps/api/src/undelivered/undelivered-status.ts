/**
 * What `GET /v1/deliveries?status=` lists: abandoned deliveries, or those still pending after a
 * failed attempt of their current run. Its own file, read by both the query's DTO and the
 * service, so that neither imports the other.
 */
export const UNDELIVERED_STATUSES = ['abandoned', 'failing'] as const;
export type UndeliveredStatus = (typeof UNDELIVERED_STATUSES)[number];
