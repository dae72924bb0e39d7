import type { EventSubscription } from '@svc/contracts';
import {
  ENDPOINT_EVENT_TYPES,
  EndpointEnvironment,
  EndpointEvent,
  EndpointStatus,
} from './endpoint-events';

/** What an endpoint is after the events of its stream: the row of the projection. */
export interface EndpointState {
  id: string;
  tenantId: string;
  url: string;
  events: EventSubscription[];
  secretCiphertext: string;
  status: EndpointStatus;
  environment: EndpointEnvironment;
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
        status: data.status,
        environment: data.environment ?? 'live',
        createdAt,
        updatedAt: createdAt,
        version,
      };
    }
    case ENDPOINT_EVENT_TYPES.updated: {
      if (!state) {
        return null;
      }
      const { url, events, secret_ciphertext } = event.data.changes;
      return {
        ...state,
        url: url ?? state.url,
        events: events ?? state.events,
        secretCiphertext: secret_ciphertext ?? state.secretCiphertext,
        updatedAt: new Date(event.data.updated_at),
        version,
      };
    }
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
  }
}
