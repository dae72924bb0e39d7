import { ENDPOINT_STATUSES, type EndpointStatus } from '@svc/webhook-endpoints';

/**
 * What an attempt means for its delivery: `gone` is an abandonment the receiver asked for with
 * 410 Gone (ADR 0027).
 */
export type DeliveryConclusion = 'succeeded' | 'abandoned' | 'gone' | 'retrying';

/**
 * Spec 3 and DESIGN.md (both in docs/spec): an abandoned delivery (its last attempt failed) makes an active endpoint
 * degraded; a successful delivery makes a degraded endpoint active again. Anything else leaves
 * the status as it is. A degraded endpoint keeps receiving new events; a disabled one (a 410 Gone)
 * receives none until recovered.
 */
export function endpointStatusAfter(
  current: EndpointStatus,
  conclusion: DeliveryConclusion,
): EndpointStatus {
  if (conclusion === 'gone') {
    return 'disabled';
  }
  if (current === 'disabled') {
    // Only recovery ends a disabled status: a delivery already on its way when the 410 came
    // neither reactivates nor degrades it.
    return current;
  }
  if (conclusion === 'abandoned') {
    return 'degraded';
  }
  if (conclusion === 'succeeded') {
    return 'active';
  }
  return current;
}

/** The statuses a conclusion leaves as they are: an endpoint in one of them needs no event. */
export function statusesKeptBy(conclusion: DeliveryConclusion): EndpointStatus[] {
  return ENDPOINT_STATUSES.filter((status) => endpointStatusAfter(status, conclusion) === status);
}
