import {
  applyDeliveryEvent,
  DELIVERY_EVENT_TYPES,
  DeliveryAttempted,
  DeliveryAttemptedEvent,
  DeliveryEvent,
  DeliveryIdentity,
  DeliveryState,
} from '@svc/deliveries';

/**
 * Deliveries and their events as the tests need them: one plausible default each, changed by
 * overrides, so a test names only what it is about. The defaults are one delivery (`del_1` of
 * `evt_1` to `wh_1`, tenant `ten_1`) attempted on 2026-01-01 at midnight UTC.
 */
export const T0 = new Date('2026-01-01T00:00:00.000Z');

export function deliveryIdentity(overrides: Partial<DeliveryIdentity> = {}): DeliveryIdentity {
  return {
    delivery_id: 'del_1',
    event_id: 'evt_1',
    endpoint_id: 'wh_1',
    tenant_id: 'ten_1',
    event_type: 'alert.created',
    ...overrides,
  };
}

/** A failed first attempt answered 500, its retry due 5 s later, unless overridden. */
export function attemptedEvent(overrides: Partial<DeliveryAttempted> = {}): DeliveryAttemptedEvent {
  return {
    type: DELIVERY_EVENT_TYPES.attempted,
    data: {
      ...deliveryIdentity(),
      attempt: 1,
      run_attempt: 1,
      succeeded: false,
      status_code: 500,
      error_kind: 'http_status',
      error_message: 'answered 500',
      latency_ms: 3,
      response_excerpt: null,
      attempted_at: T0.toISOString(),
      next_attempt_at: new Date(T0.getTime() + 5000).toISOString(),
      abandoned: false,
      ...overrides,
    },
  };
}

/** A delivery pending its second attempt, due now, unless overridden. */
export function deliveryState(overrides: Partial<DeliveryState> = {}): DeliveryState {
  const firstAttemptAt = new Date(T0.getTime() - 5000);
  return {
    id: 'del_1',
    eventId: 'evt_1',
    endpointId: 'wh_1',
    tenantId: 'ten_1',
    eventType: 'alert.created',
    sequence: 1,
    ordered: false,
    status: 'pending',
    attempts: 1,
    runAttempts: 1,
    lastAttemptAt: firstAttemptAt,
    nextAttemptAt: T0,
    createdAt: firstAttemptAt,
    completedAt: null,
    version: 1,
    ...overrides,
  };
}

/** A stream's events folded from nothing, versions numbered from 1. */
export function foldDelivery(events: readonly DeliveryEvent[]): DeliveryState | null {
  return events.reduce<DeliveryState | null>(
    (state, event, index) => applyDeliveryEvent(state, event, index + 1),
    null,
  );
}
