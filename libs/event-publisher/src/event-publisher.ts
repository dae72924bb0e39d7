import { headers, type NatsConnection } from '@nats-io/nats-core';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type EventEnvelope, SubjectScheme, validateEnvelope } from '@svc/contracts';
import { injectTraceContext } from '@svc/observability';

export class InvalidEnvelopeError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid event envelope: ${problems.join('; ')}`);
    this.name = 'InvalidEnvelopeError';
  }
}

export interface PublishResult {
  /** The JetStream stream that stored the event. */
  stream: string;
  /** Its sequence in that stream (for a duplicate: the sequence of the copy already stored). */
  seq: number;
  /** True when JetStream already held an event with this id inside its duplicate window. */
  duplicate: boolean;
}

const TRACER_NAME = '@svc/event-publisher';

/**
 * OpenTelemetry messaging attribute names. They are still "incubating" in the semantic
 * conventions package, whose authors advise copying rather than importing them.
 */
const MESSAGING_SYSTEM = 'messaging.system';
const MESSAGING_DESTINATION_NAME = 'messaging.destination.name';
const MESSAGING_DESTINATION_TEMPLATE = 'messaging.destination.template';
const MESSAGING_OPERATION_NAME = 'messaging.operation.name';
const MESSAGING_OPERATION_TYPE = 'messaging.operation.type';
const MESSAGING_MESSAGE_ID = 'messaging.message.id';
const MESSAGING_MESSAGE_BODY_SIZE = 'messaging.message.body.size';

/**
 * Publishes event envelopes to the events stream, the way every producing service should:
 * validated first, the event id as Nats-Msg-Id (so a retried publish is dropped by JetStream
 * inside the stream's duplicate window), and the trace context in the message headers so the
 * delivery engine continues the publisher's trace.
 */
export class EventPublisher {
  private readonly js: JetStreamClient;

  constructor(
    nc: NatsConnection,
    private readonly subjects: SubjectScheme = new SubjectScheme(),
  ) {
    this.js = jetstream(nc);
  }

  /** Resolves once JetStream has stored the event (or recognised it as a duplicate). */
  async publish(envelope: EventEnvelope): Promise<PublishResult> {
    const checked = validateEnvelope(envelope);
    if (!checked.ok) {
      throw new InvalidEnvelopeError(checked.problems);
    }
    const subject = this.subjects.event(envelope.tenant_id, envelope.type);
    // Tenant ids are unbounded, so the span name carries a template, never the tenant.
    const template = this.subjects.event('{tenant_id}', envelope.type);
    const body = JSON.stringify(envelope);
    // Looked up per call: a tracer taken earlier would stay bound to a provider shut down since.
    const tracer = trace.getTracer(TRACER_NAME);
    return tracer.startActiveSpan(
      `publish ${template}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          [MESSAGING_SYSTEM]: 'nats',
          [MESSAGING_DESTINATION_NAME]: subject,
          [MESSAGING_DESTINATION_TEMPLATE]: template,
          [MESSAGING_OPERATION_NAME]: 'publish',
          [MESSAGING_OPERATION_TYPE]: 'send',
          [MESSAGING_MESSAGE_ID]: envelope.id,
          [MESSAGING_MESSAGE_BODY_SIZE]: Buffer.byteLength(body),
        },
      },
      async (span) => {
        try {
          const hdrs = headers();
          injectTraceContext(hdrs);
          const ack = await this.js.publish(subject, body, { msgID: envelope.id, headers: hdrs });
          span.setAttribute('svc.jetstream.duplicate', ack.duplicate);
          return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
        } catch (caught) {
          const error = explain(caught, subject);
          span.recordException(error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }
}

/**
 * A subject no stream captures gets no responder, which the client reports as "jetstream is not
 * enabled": true only in the rarest case, so the publisher is told what is more likely wrong.
 */
function explain(caught: unknown, subject: string): Error {
  const error = caught instanceof Error ? caught : new Error(String(caught));
  if (error.name === 'JetStreamNotEnabled') {
    return new Error(
      `no JetStream stream stores ${subject}: provision the events stream for this subject root ` +
        `(or enable JetStream on the server) before publishing`,
      { cause: error },
    );
  }
  return error;
}
