import type { EventType } from '@svc/contracts';

/**
 * The tenants, endpoints and event types every scenario uses. Subscriptions differ (a family, two
 * exact types, everything, none of what is published), so which endpoints an event must reach is
 * worked out here from the subscriptions, independently of the engine's own matching, and an
 * event type nobody subscribes to checks that nothing is sent for it. One endpoint is FIFO
 * (ADR 0045), so that every fault is also tried on a queue sent one delivery at a time.
 */
export const TENANTS = ['acme', 'globex'] as const;
export type TenantName = (typeof TENANTS)[number];

export interface EndpointPlan {
  /** Name within the scenario; the receiver's URL path. */
  name: string;
  tenant: TenantName;
  events: string[];
  /** `ordering` at registration (`POST /v1/webhooks`); unordered when absent, the API's default. */
  ordering?: 'fifo';
}

export const ENDPOINTS: readonly EndpointPlan[] = [
  { name: 'acme-alerts', tenant: 'acme', events: ['alert.*'] },
  { name: 'acme-incidents', tenant: 'acme', events: ['incident.*'] },
  { name: 'acme-created', tenant: 'acme', events: ['alert.created', 'incident.created'] },
  {
    name: 'globex-everything',
    tenant: 'globex',
    events: ['alert.*', 'incident.*', 'compliance.*'],
  },
  { name: 'globex-compliance', tenant: 'globex', events: ['compliance.*'] },
  // Every type acme's other endpoints take (4 events in 10, so a long queue under 30 events/s),
  // never compliance.*: that type still reaches no endpoint of acme.
  { name: 'acme-fifo', tenant: 'acme', events: ['alert.*', 'incident.*'], ordering: 'fifo' },
];

/** The names of the endpoints registered with `ordering: "fifo"`. */
export const FIFO_ENDPOINTS: ReadonlySet<string> = new Set(
  ENDPOINTS.filter((endpoint) => endpoint.ordering === 'fifo').map((endpoint) => endpoint.name),
);

/** Published in turn for each tenant; `compliance.check_failed` reaches no endpoint of acme. */
export const PUBLISHED_TYPES: readonly EventType[] = [
  'alert.created',
  'incident.created',
  'alert.severity_changed',
  'incident.resolved',
  'compliance.check_failed',
];

/** Whether a subscription list names a type, exactly or by its family (`alert.*`). */
export function subscribes(events: readonly string[], type: string): boolean {
  const family = type.slice(0, type.indexOf('.'));
  return events.some((entry) => entry === type || entry === `${family}.*`);
}

/** The endpoints (by name) an event of `tenant` and `type` must reach. */
export function subscribedEndpoints(tenant: string, type: string): string[] {
  return ENDPOINTS.filter(
    (endpoint) => endpoint.tenant === tenant && subscribes(endpoint.events, type),
  ).map((endpoint) => endpoint.name);
}
