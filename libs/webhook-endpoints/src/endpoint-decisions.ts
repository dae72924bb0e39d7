import {
  DEFAULT_ENDPOINT_ORDERING,
  DEFAULT_SIGNATURE_SCHEMES,
  type EndpointOrdering,
  type EventSubscription,
  type SignatureScheme,
} from '@svc/contracts';
import {
  ENDPOINT_EVENT_TYPES,
  EndpointDegradedEvent,
  EndpointDeletedEvent,
  EndpointDisabledEvent,
  EndpointEnvironment,
  EndpointReactivatedEvent,
  EndpointRegisteredEvent,
  EndpointSecretRotatedEvent,
  EndpointUpdatedEvent,
  PayloadFilter,
} from './endpoint-events';
import { EndpointState } from './endpoint-state';
import type { SealedReceiverAuth } from './receiver-auth/receiver-auth';
import { canonicalEndpointUrl } from './rules/endpoint-url';

/**
 * The command side of an endpoint's stream: each `decideX(command, state, now)` is pure and
 * returns the event(s) the command makes, or none. Field rules (`checkEndpointFields`) are
 * enforced before a command is made; the secret arrives sealed, since sealing is not pure.
 */

export interface RegisterEndpoint {
  endpointId: string;
  tenantId: string;
  url: string;
  events: EventSubscription[];
  /** Sealed by SecretCipher with the endpoint id as context. */
  secretCiphertext: string;
  environment: EndpointEnvironment;
  rateLimitPerSecond?: number | null;
  /** Absent: the default, HMAC only. */
  signatureSchemes?: readonly SignatureScheme[];
  /** Absent: the default, unordered. */
  ordering?: EndpointOrdering;
  /** Absent or null: no filter, every event of the subscribed types. */
  filter?: PayloadFilter | null;
  /** Sealed by the caller (sealReceiverAuth); absent or null: none. */
  auth?: SealedReceiverAuth | null;
  /** Absent or null: the deployment's schedule and timeout. */
  retrySchedule?: readonly string[] | null;
  timeoutSeconds?: number | null;
}

/** A new endpoint, active, at the URL as it will be delivered to. */
export function decideRegister(
  command: RegisterEndpoint,
  state: EndpointState | null,
  now: Date,
): EndpointRegisteredEvent[] {
  if (state !== null) {
    return [];
  }
  return [
    {
      type: ENDPOINT_EVENT_TYPES.registered,
      data: {
        endpoint_id: command.endpointId,
        tenant_id: command.tenantId,
        url: canonicalEndpointUrl(command.url),
        events: command.events,
        secret_ciphertext: command.secretCiphertext,
        status: 'active',
        environment: command.environment,
        ...(command.rateLimitPerSecond != null && {
          rate_limit_per_second: command.rateLimitPerSecond,
        }),
        // Always recorded, the default too, so the log says how the endpoint signed from the start.
        signature_schemes: [...(command.signatureSchemes ?? DEFAULT_SIGNATURE_SCHEMES)],
        // Recorded like the schemes, the default too: the log says how the endpoint was ordered.
        ordering: command.ordering ?? DEFAULT_ENDPOINT_ORDERING,
        // Unlike the schemes, only when given: no filter is the absence of one, not a default.
        ...(command.filter != null && { filter: command.filter }),
        // Like the filter: the absence of any is not a default to record.
        ...(command.auth != null && { auth: command.auth }),
        ...(command.retrySchedule != null && { retry_schedule: [...command.retrySchedule] }),
        ...(command.timeoutSeconds != null && { timeout_seconds: command.timeoutSeconds }),
        created_at: now.toISOString(),
      },
    },
  ];
}

export interface UpdateEndpoint {
  url?: string;
  events?: readonly EventSubscription[];
  secretCiphertext?: string;
  /** null removes the limit. */
  rateLimitPerSecond?: number | null;
  signatureSchemes?: readonly SignatureScheme[];
  ordering?: EndpointOrdering;
  /** null removes the filter. */
  filter?: PayloadFilter | null;
  /** null removes `auth`. */
  auth?: SealedReceiverAuth | null;
  /** null: back to the deployment's. */
  retrySchedule?: readonly string[] | null;
  timeoutSeconds?: number | null;
}

/** The fields given, and only those, change. */
export function decideUpdate(
  command: UpdateEndpoint,
  state: EndpointState,
  now: Date,
): EndpointUpdatedEvent[] {
  return [
    {
      type: ENDPOINT_EVENT_TYPES.updated,
      data: {
        endpoint_id: state.id,
        changes: {
          ...(command.url !== undefined && { url: canonicalEndpointUrl(command.url) }),
          ...(command.events !== undefined && { events: [...command.events] }),
          ...(command.secretCiphertext !== undefined && {
            secret_ciphertext: command.secretCiphertext,
          }),
          ...(command.rateLimitPerSecond !== undefined && {
            rate_limit_per_second: command.rateLimitPerSecond,
          }),
          ...(command.signatureSchemes !== undefined && {
            signature_schemes: [...command.signatureSchemes],
          }),
          ...(command.ordering !== undefined && { ordering: command.ordering }),
          ...(command.filter !== undefined && { filter: command.filter }),
          ...(command.auth !== undefined && { auth: command.auth }),
          ...(command.retrySchedule !== undefined && {
            retry_schedule: command.retrySchedule === null ? null : [...command.retrySchedule],
          }),
          ...(command.timeoutSeconds !== undefined && { timeout_seconds: command.timeoutSeconds }),
        },
        updated_at: now.toISOString(),
      },
    },
  ];
}

/** Removing an endpoint takes nothing but the endpoint. */
export type RemoveEndpoint = Record<string, never>;

/** `DELETE /v1/webhooks/{id}`: the endpoint leaves the projection; its history stays. */
export function decideRemove(
  _command: RemoveEndpoint,
  state: EndpointState,
  now: Date,
): EndpointDeletedEvent[] {
  return [
    {
      type: ENDPOINT_EVENT_TYPES.deleted,
      data: { endpoint_id: state.id, deleted_at: now.toISOString() },
    },
  ];
}

export interface DegradeEndpoint {
  /** The delivery abandoned after its last attempt failed. */
  deliveryId: string;
}

/**
 * Spec 3, ADR 0011: an abandoned delivery makes an active endpoint degraded. A disabled one stays
 * disabled: only recovery ends that.
 */
export function decideDegrade(
  command: DegradeEndpoint,
  state: EndpointState,
  now: Date,
): EndpointDegradedEvent[] {
  if (state.status !== 'active') {
    return [];
  }
  return [
    {
      type: ENDPOINT_EVENT_TYPES.degraded,
      data: {
        endpoint_id: state.id,
        reason: 'delivery_abandoned',
        delivery_id: command.deliveryId,
        at: now.toISOString(),
      },
    },
  ];
}

export type ReactivateEndpoint =
  /** A delivery to the endpoint succeeded. */
  | { reason: 'delivery_succeeded'; deliveryId: string }
  /** `POST /v1/webhooks/{id}/recover`. */
  | { reason: 'recovered' };

/**
 * A degraded endpoint becomes active again; an active one stays as it is. A disabled endpoint is
 * made active by recovery only: a delivery that was already on its way when the 410 came does
 * not undo what the receiver asked.
 */
export function decideReactivate(
  command: ReactivateEndpoint,
  state: EndpointState,
  now: Date,
): EndpointReactivatedEvent[] {
  if (
    state.status === 'active' ||
    (state.status === 'disabled' && command.reason !== 'recovered')
  ) {
    return [];
  }
  return [
    {
      type: ENDPOINT_EVENT_TYPES.reactivated,
      data: {
        endpoint_id: state.id,
        reason: command.reason,
        delivery_id: command.reason === 'delivery_succeeded' ? command.deliveryId : null,
        at: now.toISOString(),
      },
    },
  ];
}

export interface DisableEndpoint {
  /** The delivery whose attempt was answered 410 Gone. */
  deliveryId: string;
}

/** ADR 0027: a 410 Gone disables the endpoint, whatever its status, until it is recovered. */
export function decideDisable(
  command: DisableEndpoint,
  state: EndpointState,
  now: Date,
): EndpointDisabledEvent[] {
  if (state.status === 'disabled') {
    return [];
  }
  return [
    {
      type: ENDPOINT_EVENT_TYPES.disabled,
      data: {
        endpoint_id: state.id,
        reason: 'gone',
        delivery_id: command.deliveryId,
        status_code: 410,
        at: now.toISOString(),
      },
    },
  ];
}

/** The longest a replaced secret may keep signing beside its successor. */
export const MAX_SECRET_OVERLAP_MS = 7 * 24 * 3600_000;

export interface RotateSecret {
  /** The new secret, sealed by SecretCipher with the endpoint id as context. */
  secretCiphertext: string;
  /** How long the current secret keeps signing beside the new one; 0: it stops at once. */
  overlapMs: number;
}

/**
 * ADR 0026: the current secret becomes the previous one, signing beside the new one until the
 * overlap ends. A secret still overlapping from an earlier rotation is dropped: at most two
 * secrets sign at once, so a receiver holds at most two.
 */
export function decideRotateSecret(
  command: RotateSecret,
  state: EndpointState,
  now: Date,
): EndpointSecretRotatedEvent[] {
  if (command.overlapMs < 0 || command.overlapMs > MAX_SECRET_OVERLAP_MS) {
    throw new RangeError(`overlap must be between 0 and ${MAX_SECRET_OVERLAP_MS} ms`);
  }
  const overlapping = command.overlapMs > 0;
  return [
    {
      type: ENDPOINT_EVENT_TYPES.secretRotated,
      data: {
        endpoint_id: state.id,
        secret_ciphertext: command.secretCiphertext,
        previous_secret_ciphertext: overlapping ? state.secretCiphertext : null,
        previous_secret_expires_at: overlapping
          ? new Date(now.getTime() + command.overlapMs).toISOString()
          : null,
        rotated_at: now.toISOString(),
      },
    },
  ];
}
