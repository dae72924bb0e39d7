import type { EventSubscription } from '@svc/contracts';
import {
  ENDPOINT_EVENT_TYPES,
  EndpointDegradedEvent,
  EndpointDeletedEvent,
  EndpointEnvironment,
  EndpointReactivatedEvent,
  EndpointRegisteredEvent,
  EndpointUpdatedEvent,
} from './endpoint-events';
import { EndpointState } from './endpoint-state';
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
        created_at: now.toISOString(),
      },
    },
  ];
}

export interface UpdateEndpoint {
  url?: string;
  events?: readonly EventSubscription[];
  secretCiphertext?: string;
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

/** Spec 3, ADR 0011: an abandoned delivery makes an active endpoint degraded. */
export function decideDegrade(
  command: DegradeEndpoint,
  state: EndpointState,
  now: Date,
): EndpointDegradedEvent[] {
  if (state.status === 'degraded') {
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

/** A degraded endpoint becomes active again; an active one stays as it is. */
export function decideReactivate(
  command: ReactivateEndpoint,
  state: EndpointState,
  now: Date,
): EndpointReactivatedEvent[] {
  if (state.status === 'active') {
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
