import type { EventEnvelope, EventType } from '@svc/contracts';

/**
 * The sample event `POST /v1/webhooks/{id}/test` sends (ADR 0029). Only that request makes one:
 * platform publishers may not publish the service's own `webhook.*` types.
 */
export const TEST_EVENT_TYPE = 'webhook.test' satisfies EventType;

/**
 * A delivery of a test event is a probe, not a duty: it gets one attempt, no retry, and what it
 * comes to says nothing about the endpoint's health (its status, the abandonment metrics).
 */
export function isTestDelivery(delivery: { eventType: string } | { event_type: string }): boolean {
  return ('eventType' in delivery ? delivery.eventType : delivery.event_type) === TEST_EVENT_TYPE;
}

export const TEST_EVENT_MESSAGE =
  'A test event sent at your request with POST /v1/webhooks/{id}/test. Answer 2xx to acknowledge it; it is not retried.';

/** The envelope of a test event (spec 2.2), as sent, signed, to the endpoint. */
export function testEventEnvelope(test: {
  eventId: string;
  tenantId: string;
  endpointId: string;
  at: Date;
}): EventEnvelope<{ endpoint_id: string; message: string }> {
  return {
    id: test.eventId,
    type: TEST_EVENT_TYPE,
    created_at: test.at.toISOString(),
    tenant_id: test.tenantId,
    data: { endpoint_id: test.endpointId, message: TEST_EVENT_MESSAGE },
  };
}
