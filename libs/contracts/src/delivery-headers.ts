/** Headers of every webhook delivery (spec 6.1, 6.3). */
export const DELIVERY_HEADERS = {
  signature: 'X-SVC-Signature-256',
  eventId: 'X-SVC-Event-Id',
  eventType: 'X-SVC-Event-Type',
  deliveryId: 'X-SVC-Delivery-Id',
  attempt: 'X-SVC-Delivery-Attempt',
  /** The delivery's number among its endpoint's deliveries: 1, 2, 3… (ADR 0045). */
  sequence: 'X-SVC-Sequence',
} as const;

export const DELIVERY_USER_AGENT = 'svc-webhooks/1 (+webhook delivery)';
