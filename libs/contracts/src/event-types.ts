/**
 * The catalogue of subscribable event types. The spec shows four; the rest complete the three
 * families it names (alert state changes, incident lifecycle, compliance triggers). See ADR 0004.
 */
export const EVENT_TYPES = [
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

export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_FAMILIES = ['alert', 'incident', 'compliance'] as const;

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

export function subscriptionMatches(subscription: string, eventType: string): boolean {
  if (subscription.endsWith('.*')) {
    return eventType.startsWith(subscription.slice(0, -1));
  }
  return subscription === eventType;
}
