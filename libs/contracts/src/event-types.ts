/**
 * The event types the platform's services publish. The spec shows four; the rest complete the
 * three families it names (alert state changes, incident lifecycle, compliance triggers). See
 * ADR 0004.
 */
export const PLATFORM_EVENT_TYPES = [
  'alert.created',
  'alert.severity_changed',
  'alert.acknowledged',
  'alert.escalated',
  'alert.closed',
  'incident.created',
  'incident.contained',
  'incident.resolved',
  'compliance.check_failed',
  'compliance.posture_changed',
] as const;

/**
 * The event types the webhook service raises about itself (ADR 0030): only the delivery engine
 * publishes them, on `<root>.ops.<tenant_id>.<type>`; a platform publisher's `webhook.*` event is
 * refused (`reserved-type`). `webhook.test` is the sample event sent on a tenant's request.
 */
export const OPERATIONAL_EVENT_TYPES = [
  'webhook.endpoint.degraded',
  'webhook.endpoint.reactivated',
  'webhook.endpoint.disabled',
  'webhook.delivery.abandoned',
  'webhook.test',
] as const;

/** The catalogue of subscribable event types: the platform's, then the service's own. */
export const EVENT_TYPES = [...PLATFORM_EVENT_TYPES, ...OPERATIONAL_EVENT_TYPES] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

/** The family of the operational event types: reserved to the webhook service. */
export const OPERATIONAL_EVENT_FAMILY = 'webhook';

export const EVENT_FAMILIES = [
  'alert',
  'incident',
  'compliance',
  OPERATIONAL_EVENT_FAMILY,
] as const;

export type EventFamily = (typeof EVENT_FAMILIES)[number];

/** A subscription names one event type exactly, or a whole family as `family.*`. */
export type EventSubscription = EventType | `${EventFamily}.*`;

export const EVENT_SUBSCRIPTIONS: readonly EventSubscription[] = [
  ...EVENT_TYPES,
  ...EVENT_FAMILIES.map((family) => `${family}.*` as const),
];

export function isEventSubscription(value: string): value is EventSubscription {
  return (EVENT_SUBSCRIPTIONS as readonly string[]).includes(value);
}

/** Whether a type is in the service's own family, whether or not the catalogue lists it yet. */
export function isOperationalEventType(type: string): boolean {
  return type.startsWith(`${OPERATIONAL_EVENT_FAMILY}.`);
}

export function subscriptionMatches(subscription: string, eventType: string): boolean {
  if (subscription.endsWith('.*')) {
    return eventType.startsWith(subscription.slice(0, -1));
  }
  return subscription === eventType;
}
