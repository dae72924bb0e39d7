import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { startTracing, Tracing } from '@svc/observability';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

describe('trace context from publisher to delivery (DESIGN "Observability")', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    tracing = startTracing('svc-e2e', { exporter });
    stack = await startDeliveryStack();
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
    await tracing.shutdown();
  });

  it('makes every attempt a span in the trace of the publish that carried the event', async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/traced`);
    const envelope = await stack.publish(tenantId, 'incident.created');
    await receiver.waitForRequests(1);

    const spans = await waitFor(async () => {
      const finished = exporter.getFinishedSpans();
      const publish = finished.find(
        (span) =>
          span.name.startsWith('publish') &&
          span.attributes['messaging.message.id'] === envelope.id,
      );
      const deliver = finished.find(
        (span) =>
          span.name === 'webhook deliver' && span.attributes['svc.event.id'] === envelope.id,
      );
      return Promise.resolve(publish && deliver ? { publish, deliver } : null);
    });
    expect(spans.deliver.spanContext().traceId).toBe(spans.publish.spanContext().traceId);
    expect(spans.deliver.parentSpanContext?.spanId).toBe(spans.publish.spanContext().spanId);
    expect(spans.deliver.attributes).toMatchObject({
      'svc.event.type': 'incident.created',
      'svc.delivery.attempt': 1,
      'http.response.status_code': 200,
    });
  });

  it('puts a retry, made later from the schedule, in the same trace', async () => {
    const flaky = await startHttpsReceiver({
      behaviour: (_, index) => (index === 0 ? { status: 503 } : { status: 200 }),
    });
    try {
      const { tenantId, key } = await stack.newTenant();
      await stack.registerEndpoint(key, `${flaky.url}/retried`);
      const envelope = await stack.publish(tenantId, 'alert.created');
      await flaky.waitForRequests(2, 10_000);
      const spans = await waitFor(() => {
        const finished = exporter.getFinishedSpans();
        const publish = finished.find(
          (span) => span.attributes['messaging.message.id'] === envelope.id,
        );
        const attempts = finished.filter(
          (span) =>
            span.name === 'webhook deliver' && span.attributes['svc.event.id'] === envelope.id,
        );
        return Promise.resolve(publish && attempts.length === 2 ? { publish, attempts } : null);
      });
      const traceId = spans.publish.spanContext().traceId;
      expect(spans.attempts.map((span) => span.spanContext().traceId)).toEqual([traceId, traceId]);
      expect(spans.attempts.map((span) => span.attributes['svc.delivery.attempt']).sort()).toEqual([
        1, 2,
      ]);
    } finally {
      await flaky.close();
    }
  });
});
