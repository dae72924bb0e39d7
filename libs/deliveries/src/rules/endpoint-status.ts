import type { EndpointStatus } from '@svc/webhook-endpoints';

export type DeliveryConclusion = 'succeeded' | 'abandoned' | 'retrying';

/**
 * Spec 3 and DESIGN.md (both in docs/spec): an abandoned delivery (its last attempt failed) makes an active endpoint
 * degraded; a successful delivery makes a degraded endpoint active again. Anything else leaves
 * the status as it is. A degraded endpoint keeps receiving new events.
 */
export function endpointStatusAfter(
  current: EndpointStatus,
  conclusion: DeliveryConclusion,
): EndpointStatus {
  if (conclusion === 'abandoned') {
    return 'degraded';
  }
  if (conclusion === 'succeeded') {
    return 'active';
  }
  return current;
}
