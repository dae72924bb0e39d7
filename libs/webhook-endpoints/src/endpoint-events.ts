import type { EventSubscription } from '@svc/contracts';

/** The events of a webhook endpoint's stream (stream id = endpoint id). */
export const ENDPOINT_EVENT_TYPES = {
  registered: 'webhook_endpoint.registered',
  updated: 'webhook_endpoint.updated',
  deleted: 'webhook_endpoint.deleted',
  degraded: 'webhook_endpoint.degraded',
  reactivated: 'webhook_endpoint.reactivated',
} as const;

export type EndpointStatus = 'active' | 'degraded';

/**
 * Live or sandbox (ADR 0018): taken from the credential that registered the endpoint (an
 * `svc_test_` key makes `test` endpoints; live keys and access tokens make `live` ones), and never
 * changed. Keys see only their own environment's endpoints; platform events reach only `live` ones.
 */
export type EndpointEnvironment = 'live' | 'test';

export interface EndpointRegistered {
  endpoint_id: string;
  tenant_id: string;
  url: string;
  events: EventSubscription[];
  /** Sealed by SecretCipher with the endpoint id as context; the plaintext is never logged. */
  secret_ciphertext: string;
  status: EndpointStatus;
  /** Absent in registrations recorded before ADR 0018: those endpoints are live. */
  environment?: EndpointEnvironment;
  created_at: string;
}

export interface EndpointUpdated {
  endpoint_id: string;
  changes: { url?: string; events?: EventSubscription[]; secret_ciphertext?: string };
  updated_at: string;
}

export interface EndpointDeleted {
  endpoint_id: string;
  deleted_at: string;
}

/** A delivery to the endpoint was abandoned after its last attempt failed (spec 3). */
export interface EndpointDegraded {
  endpoint_id: string;
  reason: 'delivery_abandoned';
  delivery_id: string;
  at: string;
}

/** Back to active: a delivery succeeded, or an operator recovered the endpoint. */
export interface EndpointReactivated {
  endpoint_id: string;
  reason: 'delivery_succeeded' | 'recovered';
  delivery_id: string | null;
  at: string;
}

export interface EndpointRegisteredEvent {
  type: typeof ENDPOINT_EVENT_TYPES.registered;
  data: EndpointRegistered;
}
export interface EndpointUpdatedEvent {
  type: typeof ENDPOINT_EVENT_TYPES.updated;
  data: EndpointUpdated;
}
export interface EndpointDeletedEvent {
  type: typeof ENDPOINT_EVENT_TYPES.deleted;
  data: EndpointDeleted;
}
export interface EndpointDegradedEvent {
  type: typeof ENDPOINT_EVENT_TYPES.degraded;
  data: EndpointDegraded;
}
export interface EndpointReactivatedEvent {
  type: typeof ENDPOINT_EVENT_TYPES.reactivated;
  data: EndpointReactivated;
}

/** Every event an endpoint's stream can get. */
export type EndpointEvent =
  | EndpointRegisteredEvent
  | EndpointUpdatedEvent
  | EndpointDeletedEvent
  | EndpointDegradedEvent
  | EndpointReactivatedEvent;

export function isEndpointEventType(type: string): type is EndpointEvent['type'] {
  return (Object.values(ENDPOINT_EVENT_TYPES) as string[]).includes(type);
}
