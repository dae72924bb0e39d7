import type { EndpointOrdering, EventSubscription, SignatureScheme } from '@svc/contracts';
import type { SealedReceiverAuth } from './receiver-auth/receiver-auth';

/** The events of a webhook endpoint's stream (stream id = endpoint id). */
export const ENDPOINT_EVENT_TYPES = {
  registered: 'webhook_endpoint.registered',
  updated: 'webhook_endpoint.updated',
  deleted: 'webhook_endpoint.deleted',
  degraded: 'webhook_endpoint.degraded',
  reactivated: 'webhook_endpoint.reactivated',
  disabled: 'webhook_endpoint.disabled',
  secretRotated: 'webhook_endpoint.secret_rotated',
} as const;

/**
 * `degraded` still receives events (spec 3); `disabled` receives none until recovered: its
 * receiver answered 410 Gone (ADR 0027).
 */
export type EndpointStatus = 'active' | 'degraded' | 'disabled';

/** Every status, for what must cover them all (metric series, the rule's stable states). */
export const ENDPOINT_STATUSES: readonly EndpointStatus[] = Object.keys({
  active: true,
  degraded: true,
  disabled: true,
} satisfies Record<EndpointStatus, true>) as EndpointStatus[];

/**
 * Live or sandbox (ADR 0018): taken from the credential that registered the endpoint (an
 * `svc_test_` key makes `test` endpoints; live keys and access tokens make `live` ones), and never
 * changed. Keys see only their own environment's endpoints; platform events reach only `live` ones.
 */
export type EndpointEnvironment = 'live' | 'test';

/**
 * A payload filter as the client gave it (ADR 0046): a JSON object in the filter language,
 * validated by compileFilter before it is recorded. Kept as JSON, not compiled, in the log and the
 * projection: each engine compiles it when it loads the endpoint. Not a secret.
 */
export type PayloadFilter = { [field: string]: string | number | boolean | null | object };

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
  /** Deliveries per second across all engines (ADR 0028); absent or null: no limit. */
  rate_limit_per_second?: number | null;
  /** How deliveries are signed (ADR 0044); absent in registrations recorded before it: HMAC only. */
  signature_schemes?: SignatureScheme[];
  /** Delivery order (ADR 0045); absent in registrations recorded before it: unordered. */
  ordering?: EndpointOrdering;
  /** Recorded only when the registration gave one: absent, the endpoint takes every event. */
  filter?: PayloadFilter;
  /** How the receiver is authenticated (ADR 0048), its secrets sealed; only when given. */
  auth?: SealedReceiverAuth;
  /** Delays before attempts 2, 3, ... such as `30s` (ADR 0048); only when given. */
  retry_schedule?: string[];
  /** The attempt's timeout in seconds (ADR 0048); only when given. */
  timeout_seconds?: number;
  created_at: string;
}

export interface EndpointUpdated {
  endpoint_id: string;
  changes: {
    url?: string;
    events?: EventSubscription[];
    /** A new secret replacing the old at once (PATCH): no overlap, unlike a rotation. */
    secret_ciphertext?: string;
    /** null removes the limit. */
    rate_limit_per_second?: number | null;
    signature_schemes?: SignatureScheme[];
    ordering?: EndpointOrdering;
    /** null removes the filter. */
    filter?: PayloadFilter | null;
    /** null removes `auth`. */
    auth?: SealedReceiverAuth | null;
    /** null: back to the deployment's schedule. */
    retry_schedule?: string[] | null;
    /** null: back to the deployment's timeout. */
    timeout_seconds?: number | null;
  };
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

/** The receiver answered 410 Gone: nothing more is sent until the endpoint is recovered. */
export interface EndpointDisabled {
  endpoint_id: string;
  reason: 'gone';
  delivery_id: string;
  status_code: 410;
  at: string;
}

/**
 * A new signing secret; the one it replaces keeps signing beside it until
 * `previous_secret_expires_at` (ADR 0026), so receivers can switch without losing a delivery.
 */
export interface EndpointSecretRotated {
  endpoint_id: string;
  secret_ciphertext: string;
  /** Null when the rotation asked for no overlap. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  rotated_at: string;
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

export interface EndpointDisabledEvent {
  type: typeof ENDPOINT_EVENT_TYPES.disabled;
  data: EndpointDisabled;
}
export interface EndpointSecretRotatedEvent {
  type: typeof ENDPOINT_EVENT_TYPES.secretRotated;
  data: EndpointSecretRotated;
}

/** Every event an endpoint's stream can get. */
export type EndpointEvent =
  | EndpointRegisteredEvent
  | EndpointUpdatedEvent
  | EndpointDeletedEvent
  | EndpointDegradedEvent
  | EndpointReactivatedEvent
  | EndpointDisabledEvent
  | EndpointSecretRotatedEvent;

export function isEndpointEventType(type: string): type is EndpointEvent['type'] {
  return (Object.values(ENDPOINT_EVENT_TYPES) as string[]).includes(type);
}
