import {
  DEFAULT_ENDPOINT_ORDERING,
  DEFAULT_SIGNATURE_SCHEMES,
  type EndpointOrdering,
  type EventSubscription,
  type SignatureScheme,
} from '@svc/contracts';
import {
  ENDPOINT_EVENT_TYPES,
  EndpointEnvironment,
  EndpointEvent,
  EndpointStatus,
  EndpointUpdated,
  PayloadFilter,
} from './endpoint-events';
import type { SealedReceiverAuth } from './receiver-auth/receiver-auth';

/** What an endpoint is after the events of its stream: the row of the projection. */
export interface EndpointState {
  id: string;
  tenantId: string;
  url: string;
  events: EventSubscription[];
  secretCiphertext: string;
  /** The secret a rotation replaced, still signing beside the new one until it expires. */
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
  status: EndpointStatus;
  environment: EndpointEnvironment;
  /** Deliveries per second across all engines; null: no limit. */
  rateLimitPerSecond: number | null;
  /** How deliveries are signed (ADR 0044): a non-empty subset of SIGNATURE_SCHEMES. */
  signatureSchemes: SignatureScheme[];
  /** Delivery order (ADR 0045): `fifo` sends one at a time in sequence order. */
  ordering: EndpointOrdering;
  /** Which of its subscribed events it takes (ADR 0046); null: all of them. */
  filter: PayloadFilter | null;
  /** How the receiver is authenticated beyond the signature (ADR 0048), sealed; null: not at all. */
  auth: SealedReceiverAuth | null;
  /** The endpoint's own retry delays (ADR 0048); null: the deployment's. */
  retrySchedule: string[] | null;
  /** The endpoint's own attempt timeout in seconds (ADR 0048); null: the deployment's. */
  timeoutSeconds: number | null;
  createdAt: Date;
  updatedAt: Date;
  version: number;
}

/**
 * The fold of an endpoint's stream: the state after one more event, or null once deleted.
 * Pure, so the live projection and a rebuild from the log cannot disagree.
 */
export function applyEndpointEvent(
  state: EndpointState | null,
  event: EndpointEvent,
  version: number,
): EndpointState | null {
  switch (event.type) {
    case ENDPOINT_EVENT_TYPES.registered: {
      const data = event.data;
      const createdAt = new Date(data.created_at);
      return {
        id: data.endpoint_id,
        tenantId: data.tenant_id,
        url: data.url,
        events: data.events,
        secretCiphertext: data.secret_ciphertext,
        previousSecretCiphertext: null,
        previousSecretExpiresAt: null,
        status: data.status,
        environment: data.environment ?? 'live',
        rateLimitPerSecond: data.rate_limit_per_second ?? null,
        signatureSchemes: data.signature_schemes ?? [...DEFAULT_SIGNATURE_SCHEMES],
        ordering: data.ordering ?? DEFAULT_ENDPOINT_ORDERING,
        filter: data.filter ?? null,
        auth: data.auth ?? null,
        retrySchedule: data.retry_schedule ?? null,
        timeoutSeconds: data.timeout_seconds ?? null,
        createdAt,
        updatedAt: createdAt,
        version,
      };
    }
    case ENDPOINT_EVENT_TYPES.updated:
      return state ? applyUpdate(state, event.data, version) : null;
    case ENDPOINT_EVENT_TYPES.deleted:
      return null;
    case ENDPOINT_EVENT_TYPES.degraded:
      return state
        ? { ...state, status: 'degraded', updatedAt: new Date(event.data.at), version }
        : null;
    case ENDPOINT_EVENT_TYPES.reactivated:
      return state
        ? { ...state, status: 'active', updatedAt: new Date(event.data.at), version }
        : null;
    case ENDPOINT_EVENT_TYPES.disabled:
      return state
        ? { ...state, status: 'disabled', updatedAt: new Date(event.data.at), version }
        : null;
    case ENDPOINT_EVENT_TYPES.secretRotated: {
      if (!state) {
        return null;
      }
      const data = event.data;
      return {
        ...state,
        secretCiphertext: data.secret_ciphertext,
        previousSecretCiphertext: data.previous_secret_ciphertext,
        previousSecretExpiresAt: data.previous_secret_expires_at
          ? new Date(data.previous_secret_expires_at)
          : null,
        updatedAt: new Date(data.rotated_at),
        version,
      };
    }
  }
}

/** A PATCH: the fields it names change, and only those. */
function applyUpdate(state: EndpointState, data: EndpointUpdated, version: number): EndpointState {
  const {
    url,
    events,
    secret_ciphertext,
    rate_limit_per_second,
    signature_schemes,
    ordering,
    filter,
    auth,
    retry_schedule,
    timeout_seconds,
  } = data.changes;
  return {
    ...state,
    url: url ?? state.url,
    events: events ?? state.events,
    secretCiphertext: secret_ciphertext ?? state.secretCiphertext,
    // A secret set by PATCH replaces every secret at once, an overlapping one included.
    ...(secret_ciphertext !== undefined && {
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
    }),
    rateLimitPerSecond:
      rate_limit_per_second === undefined ? state.rateLimitPerSecond : rate_limit_per_second,
    signatureSchemes: signature_schemes ?? state.signatureSchemes,
    ordering: ordering ?? state.ordering,
    filter: filter === undefined ? state.filter : filter,
    auth: auth === undefined ? state.auth : auth,
    retrySchedule: retry_schedule === undefined ? state.retrySchedule : retry_schedule,
    timeoutSeconds: timeout_seconds === undefined ? state.timeoutSeconds : timeout_seconds,
    updatedAt: new Date(data.updated_at),
    version,
  };
}
