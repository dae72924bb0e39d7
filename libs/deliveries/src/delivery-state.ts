import { DELIVERY_EVENT_TYPES, DeliveryEvent } from './delivery-events';

export type DeliveryStatus = 'pending' | 'succeeded' | 'abandoned' | 'cancelled';

/** A delivery after the events of its stream: the row of the `deliveries` projection. */
export interface DeliveryState {
  id: string;
  eventId: string;
  endpointId: string;
  tenantId: string;
  eventType: string;
  /** Its number among its endpoint's deliveries, from the event that started it (ADR 0045). */
  sequence: number | null;
  /** Sent only after its endpoint's deliveries of lower numbers concluded (a FIFO endpoint). */
  ordered: boolean;
  status: DeliveryStatus;
  attempts: number;
  runAttempts: number;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  completedAt: Date | null;
  version: number;
}

/** The fold of a delivery's stream. Pure: the live projection and a rebuild cannot disagree. */
export function applyDeliveryEvent(
  state: DeliveryState | null,
  event: DeliveryEvent,
  version: number,
): DeliveryState | null {
  switch (event.type) {
    case DELIVERY_EVENT_TYPES.attempted: {
      const data = event.data;
      const attemptedAt = new Date(data.attempted_at);
      if (data.concurrent_with !== undefined && state) {
        return withConcurrentAttempt(state, data.succeeded, attemptedAt, data.attempt, version);
      }
      const base = state ?? started(data, attemptedAt);
      const status = data.succeeded ? 'succeeded' : data.abandoned ? 'abandoned' : 'pending';
      return {
        ...base,
        status,
        attempts: data.attempt,
        runAttempts: data.run_attempt,
        lastAttemptAt: attemptedAt,
        nextAttemptAt: data.next_attempt_at ? new Date(data.next_attempt_at) : null,
        completedAt: status === 'pending' ? null : attemptedAt,
        version,
      };
    }
    case DELIVERY_EVENT_TYPES.deferred: {
      const dueAt = new Date(event.data.due_at);
      return {
        ...(state ?? started(event.data, dueAt, event.data.reason === 'ordered')),
        status: 'pending',
        nextAttemptAt: dueAt,
        version,
      };
    }
    case DELIVERY_EVENT_TYPES.scheduled: {
      const dueAt = new Date(event.data.due_at);
      return {
        ...(state ?? started(event.data, dueAt)),
        status: 'pending',
        nextAttemptAt: dueAt,
        version,
      };
    }
    // Both start a new run of attempts, due at once; attempt numbers keep counting.
    case DELIVERY_EVENT_TYPES.redriven:
    case DELIVERY_EVENT_TYPES.replayed:
      return state
        ? {
            ...state,
            status: 'pending',
            runAttempts: 0,
            nextAttemptAt: new Date(event.data.due_at),
            completedAt: null,
            version,
          }
        : null;
    case DELIVERY_EVENT_TYPES.cancelled:
      return state
        ? {
            ...state,
            status: 'cancelled',
            nextAttemptAt: null,
            completedAt: new Date(event.data.cancelled_at),
            version,
          }
        : null;
  }
}

/**
 * A raced attempt: a success completes a delivery still pending or abandoned (the receiver has
 * the event, so nothing may send it again); nothing else changes its course.
 */
function withConcurrentAttempt(
  state: DeliveryState,
  succeeded: boolean,
  attemptedAt: Date,
  attempt: number,
  version: number,
): DeliveryState {
  const completes = succeeded && (state.status === 'pending' || state.status === 'abandoned');
  return {
    ...state,
    status: completes ? 'succeeded' : state.status,
    attempts: Math.max(state.attempts, attempt),
    lastAttemptAt:
      state.lastAttemptAt && state.lastAttemptAt > attemptedAt ? state.lastAttemptAt : attemptedAt,
    nextAttemptAt: completes ? null : state.nextAttemptAt,
    completedAt: completes ? attemptedAt : state.completedAt,
    version,
  };
}

function started(
  identity: {
    delivery_id: string;
    event_id: string;
    endpoint_id: string;
    tenant_id: string;
    event_type: string;
    sequence?: number;
  },
  at: Date,
  ordered = false,
): DeliveryState {
  return {
    id: identity.delivery_id,
    eventId: identity.event_id,
    endpointId: identity.endpoint_id,
    tenantId: identity.tenant_id,
    eventType: identity.event_type,
    sequence: identity.sequence ?? null,
    ordered,
    status: 'pending',
    attempts: 0,
    runAttempts: 0,
    lastAttemptAt: null,
    nextAttemptAt: null,
    createdAt: at,
    completedAt: null,
    version: 0,
  };
}
