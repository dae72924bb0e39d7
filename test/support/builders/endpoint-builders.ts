import {
  applyEndpointEvent,
  ENDPOINT_EVENT_TYPES,
  EndpointEvent,
  EndpointRegistered,
  EndpointRegisteredEvent,
  EndpointState,
} from '@svc/webhook-endpoints';

/** Endpoints and their events as the tests need them (see delivery-builders.ts). */
export function endpointState(overrides: Partial<EndpointState> = {}): EndpointState {
  return {
    id: 'wh_1',
    tenantId: 'ten_1',
    url: 'https://a.example/in',
    events: ['alert.created'],
    secretCiphertext: 'sealed-1',
    previousSecretCiphertext: null,
    previousSecretExpiresAt: null,
    status: 'active',
    environment: 'live',
    rateLimitPerSecond: null,
    signatureSchemes: ['hmac-sha256'],
    ordering: 'unordered',
    filter: null,
    auth: null,
    retrySchedule: null,
    timeoutSeconds: null,
    createdAt: new Date('2025-12-01T00:00:00.000Z'),
    updatedAt: new Date('2025-12-01T00:00:00.000Z'),
    version: 1,
    ...overrides,
  };
}

export function registeredEvent(
  overrides: Partial<EndpointRegistered> = {},
): EndpointRegisteredEvent {
  return {
    type: ENDPOINT_EVENT_TYPES.registered,
    data: {
      endpoint_id: 'wh_1',
      tenant_id: 'ten_1',
      url: 'https://a.example/in',
      events: ['alert.created'],
      secret_ciphertext: 'sealed-1',
      status: 'active',
      created_at: '2026-01-01T00:00:00.000Z',
      ...overrides,
    },
  };
}

/** A stream's events folded from nothing, versions numbered from 1. */
export function foldEndpoint(events: readonly EndpointEvent[]): EndpointState | null {
  return events.reduce<EndpointState | null>(
    (state, event, index) => applyEndpointEvent(state, event, index + 1),
    null,
  );
}
