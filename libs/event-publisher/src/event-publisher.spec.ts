import type { NatsConnection, RequestOptions } from '@nats-io/nats-core';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { SubjectScheme, validateEnvelope } from '@svc/contracts';
import { startTracing, type Tracing } from '@svc/observability';
import { EventPublisher, InvalidEnvelopeError } from './event-publisher';
import { newEventEnvelope } from './new-event-envelope';

/**
 * Only the request JetStream publishes with is faked, to check what the publisher hands over;
 * test/messaging proves the same against a real NATS server.
 */
function fakeConnection(reply: unknown) {
  const requests: { subject: string; data: string; options: Partial<RequestOptions> }[] = [];
  const nc = {
    options: {},
    request: (subject: string, data: Uint8Array | string, options: Partial<RequestOptions>) => {
      requests.push({ subject, data: data.toString(), options });
      return Promise.resolve({ data: new TextEncoder().encode(JSON.stringify(reply)) });
    },
  } as unknown as NatsConnection;
  return { nc, requests };
}

describe('newEventEnvelope', () => {
  it('builds a valid envelope with a fresh event id and a UTC timestamp', () => {
    const now = new Date('2025-03-01T10:15:30.123Z');
    const envelope = newEventEnvelope('ten_abc', 'alert.created', { id: 'alr_1' }, now);
    expect(envelope).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      type: 'alert.created',
      created_at: '2025-03-01T10:15:30.123Z',
      tenant_id: 'ten_abc',
      data: { id: 'alr_1' },
    });
    expect(validateEnvelope(envelope).ok).toBe(true);
    expect(newEventEnvelope('ten_abc', 'alert.created', {}).id).not.toBe(envelope.id);
  });
});

describe('EventPublisher', () => {
  let tracing: Tracing | undefined;

  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
  });

  it('refuses an invalid envelope and publishes nothing', async () => {
    const { nc, requests } = fakeConnection({ stream: 'S', seq: 1 });
    const envelope = {
      ...newEventEnvelope('ten_abc', 'alert.created', {}),
      created_at: '2025-03-01T12:15:30+02:00',
    };
    const publishing = new EventPublisher(nc).publish(envelope);
    await expect(publishing).rejects.toThrow(InvalidEnvelopeError);
    await expect(publishing).rejects.toMatchObject({
      problems: ['/created_at: must be in UTC (end with Z)'],
    });
    expect(requests).toEqual([]);
  });

  it('publishes on the tenant and type subject with the event id and trace context', async () => {
    const exporter = new InMemorySpanExporter();
    tracing = startTracing('test', { exporter });
    const { nc, requests } = fakeConnection({ stream: 'EVENTS', seq: 7, duplicate: false });
    const publisher = new EventPublisher(nc, new SubjectScheme('test.svc'));
    const envelope = newEventEnvelope('ten_abc', 'incident.created', { id: 'inc_1' });

    await expect(publisher.publish(envelope)).resolves.toEqual({
      stream: 'EVENTS',
      seq: 7,
      duplicate: false,
    });

    expect(requests).toHaveLength(1);
    const [{ subject, data, options }] = requests;
    expect(subject).toBe('test.svc.events.ten_abc.incident.created');
    expect(JSON.parse(data)).toEqual(envelope);
    expect(options.headers?.get('Nats-Msg-Id')).toBe(envelope.id);
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('publish test.svc.events.{tenant_id}.incident.created');
    expect(span.kind).toBe(SpanKind.PRODUCER);
    expect(span.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'test.svc.events.ten_abc.incident.created',
      'messaging.message.id': envelope.id,
    });
    const { traceId, spanId } = span.spanContext();
    expect(options.headers?.get('traceparent')).toBe(`00-${traceId}-${spanId}-01`);
  });
});
