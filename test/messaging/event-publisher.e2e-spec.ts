import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { type EventEnvelope, newId, SubjectScheme } from '@svc/contracts';
import { EventPublisher, InvalidEnvelopeError, newEventEnvelope } from '@svc/event-publisher';
import { provisionJetStream } from '@svc/messaging';
import { startTracing, type Tracing } from '@svc/observability';
import {
  connectTestNats,
  deleteStreams,
  type JetStreamSettings,
  uniqueJetStreamSettings,
} from '../support/jetstream-harness';

describe('publishing events to JetStream (real NATS)', () => {
  const settings: JetStreamSettings = uniqueJetStreamSettings();
  const subjects = new SubjectScheme(settings.subjectRoot);
  const exporter = new InMemorySpanExporter();
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let tracing: Tracing;
  let publisher: EventPublisher;

  /** Messages the events stream holds on one subject. */
  async function storedOn(subject: string): Promise<number> {
    const info = await jsm.streams.info(settings.eventsStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  const alert = (tenantId = newId('ten')): EventEnvelope =>
    newEventEnvelope(tenantId, 'alert.created', { id: 'alr_1', severity: 'high' });

  beforeAll(async () => {
    tracing = startTracing('event-publisher-e2e', { exporter });
    nc = await connectTestNats();
    jsm = await jetstreamManager(nc);
    await provisionJetStream(nc, settings);
    publisher = new EventPublisher(nc, subjects);
  });

  afterAll(async () => {
    await deleteStreams(nc, settings);
    await nc.close();
    await tracing.shutdown();
  });

  beforeEach(() => exporter.reset());

  it('stores the event on its tenant and type subject, with its id and trace context', async () => {
    const envelope = alert();
    const subject = `${settings.subjectRoot}.events.${envelope.tenant_id}.alert.created`;

    const result = await publisher.publish(envelope);

    expect(result).toEqual({
      stream: settings.eventsStream,
      seq: expect.any(Number),
      duplicate: false,
    });
    const stored = await jsm.streams.getMessage(settings.eventsStream, { seq: result.seq });
    expect(stored?.subject).toBe(subject);
    expect(stored?.json()).toEqual(envelope);
    expect(stored?.header.get('Nats-Msg-Id')).toBe(envelope.id);

    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe(`publish ${settings.subjectRoot}.events.{tenant_id}.alert.created`);
    expect(span.kind).toBe(SpanKind.PRODUCER);
    expect(span.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': subject,
      'messaging.message.id': envelope.id,
    });
    const traceparent = stored?.header.get('traceparent') ?? '';
    const [, traceId, parentSpanId] = traceparent.split('-');
    expect(traceId).toBe(span.spanContext().traceId);
    expect(parentSpanId).toBe(span.spanContext().spanId);
  });

  it("continues the caller's trace", async () => {
    const tracer = trace.getTracer('e2e');
    const { result, traceId } = await tracer.startActiveSpan('handle request', async (parent) => {
      const published = await publisher.publish(alert());
      parent.end();
      return { result: published, traceId: parent.spanContext().traceId };
    });

    const stored = await jsm.streams.getMessage(settings.eventsStream, { seq: result.seq });
    expect(stored?.header.get('traceparent').split('-')[1]).toBe(traceId);
  });

  it('lets JetStream drop a republished event inside the duplicate window', async () => {
    const envelope = alert();
    const subject = subjects.event(envelope.tenant_id, envelope.type);

    const first = await publisher.publish(envelope);
    const second = await publisher.publish(envelope);

    expect(first.duplicate).toBe(false);
    expect(second).toEqual({ stream: settings.eventsStream, seq: first.seq, duplicate: true });
    expect(await storedOn(subject)).toBe(1);
  });

  it('refuses an invalid envelope and stores nothing', async () => {
    const envelope = { ...alert(), type: 'alert.exploded' } as unknown as EventEnvelope;
    const subject = subjects.event(envelope.tenant_id, envelope.type);
    const before = (await jsm.streams.info(settings.eventsStream)).state.messages;

    const publishing = publisher.publish(envelope);

    await expect(publishing).rejects.toThrow(InvalidEnvelopeError);
    await expect(publishing).rejects.toMatchObject({
      problems: ['/type: must be equal to one of the allowed values'],
    });
    expect(await storedOn(subject)).toBe(0);
    expect((await jsm.streams.info(settings.eventsStream)).state.messages).toBe(before);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('tells the publisher when no stream stores its subject root', async () => {
    const elsewhere = new EventPublisher(
      nc,
      new SubjectScheme(`${settings.subjectRoot}_unprovisioned`),
    );

    await expect(elsewhere.publish(alert())).rejects.toThrow(/no JetStream stream stores/);
  });
});
