/** The events of a delivery's stream (stream id = delivery id `del_...`). */
export const DELIVERY_EVENT_TYPES = {
  attempted: 'delivery.attempted',
  deferred: 'delivery.deferred',
  redriven: 'delivery.redriven',
  cancelled: 'delivery.cancelled',
  scheduled: 'delivery.scheduled',
  replayed: 'delivery.replayed',
} as const;

/** Which event goes to which endpoint; carried by the events that can start a stream. */
export interface DeliveryIdentity {
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  tenant_id: string;
  event_type: string;
  /**
   * The delivery's number among its endpoint's deliveries (1, 2, 3…), claimed before its first
   * attempt and the same on every attempt (ADR 0045). Absent on test deliveries, and on those made
   * before numbers existed.
   */
  sequence?: number;
}

export interface DeliveryAttempted extends DeliveryIdentity {
  /** Counted over the delivery's whole life. */
  attempt: number;
  /** Counted since the delivery was started or last re-driven; the retry schedule uses this. */
  run_attempt: number;
  succeeded: boolean;
  status_code: number | null;
  error_kind: string | null;
  error_message: string | null;
  latency_ms: number;
  response_excerpt: string | null;
  attempted_at: string;
  /** When the next attempt is due; null when the delivery succeeded or was abandoned. */
  next_attempt_at: string | null;
  abandoned: boolean;
  /**
   * Set on an attempt that another writer made at the same time as this delivery's own (one
   * event ingested twice at once, or one retry taken by two engines): the delivery id it was sent
   * under. The receiver saw it, so it is recorded; only its success changes the delivery.
   */
  concurrent_with?: string;
}

/** A raced attempt re-addressed to the delivery that won: recorded, never scheduling anything. */
export function asConcurrentAttempt(
  attempt: DeliveryAttempted,
  winner: { id: string },
): DeliveryAttempted {
  return {
    ...attempt,
    delivery_id: winner.id,
    concurrent_with: attempt.concurrent_with ?? attempt.delivery_id,
    next_attempt_at: null,
    abandoned: false,
  };
}

/**
 * The first attempt was put off to `due_at`: `endpoint_busy`, the endpoint was at its concurrency
 * limit or rate; `ordered`, the endpoint takes its deliveries one at a time in sequence order, so
 * each waits in the schedule for those before it (ADR 0045). An ordered delivery stays ordered.
 */
export interface DeliveryDeferred extends DeliveryIdentity {
  due_at: string;
  reason: 'endpoint_busy' | 'ordered';
}

/** An abandoned delivery started again by `POST /v1/webhooks/{id}/recover`. */
export interface DeliveryRedriven {
  delivery_id: string;
  due_at: string;
  redriven_at: string;
}

/**
 * A delivery started by a request rather than by an event taken from NATS: the test event of
 * `POST /v1/webhooks/{id}/test` (ADR 0029), due at once.
 */
export interface DeliveryScheduled extends DeliveryIdentity {
  due_at: string;
  reason: 'test_requested';
}

/**
 * A delivery sent again on request (`POST /v1/deliveries/{id}/replay`, or every delivery of an
 * endpoint in a time range), whatever its status: a fresh run of attempts, due at once (ADR 0029).
 */
export interface DeliveryReplayed {
  delivery_id: string;
  /** The delivery's status when it was replayed. */
  status_before: 'pending' | 'succeeded' | 'abandoned' | 'cancelled';
  due_at: string;
  replayed_at: string;
}

export interface DeliveryCancelled {
  delivery_id: string;
  /**
   * `payload_missing`: no body of this tenant's event is stored (a delivery made before event
   * identity was per tenant, whose stored body was another tenant's): nothing may be sent.
   * `endpoint_disabled`: the endpoint answered 410 Gone to another delivery (ADR 0027).
   */
  reason: 'endpoint_deleted' | 'endpoint_disabled' | 'payload_missing';
  cancelled_at: string;
}

export interface DeliveryAttemptedEvent {
  type: typeof DELIVERY_EVENT_TYPES.attempted;
  data: DeliveryAttempted;
}
export interface DeliveryDeferredEvent {
  type: typeof DELIVERY_EVENT_TYPES.deferred;
  data: DeliveryDeferred;
}
export interface DeliveryRedrivenEvent {
  type: typeof DELIVERY_EVENT_TYPES.redriven;
  data: DeliveryRedriven;
}
export interface DeliveryCancelledEvent {
  type: typeof DELIVERY_EVENT_TYPES.cancelled;
  data: DeliveryCancelled;
}
export interface DeliveryScheduledEvent {
  type: typeof DELIVERY_EVENT_TYPES.scheduled;
  data: DeliveryScheduled;
}
export interface DeliveryReplayedEvent {
  type: typeof DELIVERY_EVENT_TYPES.replayed;
  data: DeliveryReplayed;
}

/** Every event a delivery's stream can get. */
export type DeliveryEvent =
  | DeliveryAttemptedEvent
  | DeliveryDeferredEvent
  | DeliveryRedrivenEvent
  | DeliveryCancelledEvent
  | DeliveryScheduledEvent
  | DeliveryReplayedEvent;
