/** The events of a delivery's stream (stream id = delivery id `del_...`). */
export const DELIVERY_EVENT_TYPES = {
  attempted: 'delivery.attempted',
  deferred: 'delivery.deferred',
  redriven: 'delivery.redriven',
  cancelled: 'delivery.cancelled',
} as const;

/** Which event goes to which endpoint; carried by the events that can start a stream. */
export interface DeliveryIdentity {
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  tenant_id: string;
  event_type: string;
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
}

/** The first attempt was put off (the endpoint was at its concurrency limit) to `due_at`. */
export interface DeliveryDeferred extends DeliveryIdentity {
  due_at: string;
  reason: 'endpoint_busy';
}

/** An abandoned delivery started again by `POST /v1/webhooks/{id}/recover`. */
export interface DeliveryRedriven {
  delivery_id: string;
  due_at: string;
  redriven_at: string;
}

export interface DeliveryCancelled {
  delivery_id: string;
  reason: 'endpoint_deleted';
  cancelled_at: string;
}

export type DeliveryEvent =
  | { type: typeof DELIVERY_EVENT_TYPES.attempted; data: DeliveryAttempted }
  | { type: typeof DELIVERY_EVENT_TYPES.deferred; data: DeliveryDeferred }
  | { type: typeof DELIVERY_EVENT_TYPES.redriven; data: DeliveryRedriven }
  | { type: typeof DELIVERY_EVENT_TYPES.cancelled; data: DeliveryCancelled };
