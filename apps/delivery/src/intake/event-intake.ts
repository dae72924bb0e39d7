import { Logger } from '@nestjs/common';
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { Context } from '@opentelemetry/api';
import { EventEnvelope, newId, SubjectScheme, validateEnvelope } from '@svc/contracts';
import { DELIVERY_EVENT_TYPES, DeliveryIdentity } from '@svc/deliveries';
import { extractTraceContext } from '@svc/observability';
import { DataSource } from 'typeorm';
import { DeliveryMetrics } from '../delivery-metrics';
import { AttemptRunner } from '../dispatch/attempt-runner';
import { ConcurrencyLimits } from '../dispatch/concurrency-limits';
import { DirectoryEndpoint, EndpointDirectory } from '../fan-out/endpoint-directory';
import { DeliveryRecorder, InboundPayload } from '../recording/delivery-recorder';
import { DeadLetterPark } from './dead-letter';

export interface IntakeOptions {
  /** Messages handled at once; also how many the consumer asks JetStream for. */
  maxMessagesInFlight: number;
  /** How long a first attempt put off for a busy endpoint waits. */
  busyEndpointDelayMs: number;
  /** Delay before JetStream redelivers a message whose handling failed (say, the database is away). */
  retryFailedMessageMs: number;
}

interface ValidEvent {
  envelope: EventEnvelope;
  body: string;
}

/**
 * Takes events from the JetStream consumer and fans each out: one delivery per subscribed
 * endpoint, whose first attempt runs at once (or is put off to the schedule when the endpoint is
 * at its limit). Messages are handled concurrently; each is acknowledged once the outcome of
 * every one of its deliveries is durable, and an invalid one is parked on the dead-letter subject.
 */
export class EventIntake {
  private readonly logger = new Logger('EventIntake');
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly deps: {
      consumer: Consumer;
      subjects: SubjectScheme;
      directory: EndpointDirectory;
      runner: AttemptRunner;
      recorder: DeliveryRecorder;
      limits: ConcurrencyLimits;
      deadLetter: DeadLetterPark;
      metrics: DeliveryMetrics;
      dataSource: DataSource;
    },
    private readonly options: IntakeOptions,
  ) {}

  async start(): Promise<void> {
    this.messages = await this.deps.consumer.consume({
      max_messages: this.options.maxMessagesInFlight,
    });
    this.loop = this.consume(this.messages);
  }

  /** Stops taking messages and waits for those in hand; unhandled ones go back to JetStream. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.messages?.stop();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async consume(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      if (this.stopping) {
        message.nak();
        continue;
      }
      const handling = this.handle(message).catch((error: unknown) => {
        this.logger.error(
          `message ${message.seq} goes back to JetStream: ${(error as Error).message}`,
        );
        message.nak(this.options.retryFailedMessageMs);
      });
      this.inFlight.add(handling);
      void handling.finally(() => this.inFlight.delete(handling));
      if (this.inFlight.size >= this.options.maxMessagesInFlight) {
        await Promise.race(this.inFlight);
      }
    }
  }

  private async handle(message: JsMsg): Promise<void> {
    this.deps.metrics.eventsReceived.inc();
    const event = await this.accept(message);
    if (!event) {
      return;
    }
    const { envelope, body } = event;
    const subscribers = await this.deps.directory.subscribers(envelope.tenant_id, envelope.type);
    const delivered = message.info.redelivered
      ? await this.endpointsAlreadyServed(envelope.id)
      : new Set<string>();
    const payload: InboundPayload = {
      eventId: envelope.id,
      tenantId: envelope.tenant_id,
      type: envelope.type,
      body,
    };
    const parent = extractTraceContext(message.headers);
    const publishedAtMs = message.time.getTime();
    await Promise.all(
      subscribers
        .filter((endpoint) => !delivered.has(endpoint.id))
        .map((endpoint) => this.deliver(envelope, endpoint, payload, parent, publishedAtMs)),
    );
    message.ack();
  }

  /** The envelope, or null after parking a message that is not one. */
  private async accept(message: JsMsg): Promise<ValidEvent | null> {
    const body = Buffer.from(message.data).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      await this.deps.deadLetter.park(message, 'invalid-json', (error as Error).message);
      return null;
    }
    const validation = validateEnvelope(parsed);
    if (!validation.ok) {
      await this.deps.deadLetter.park(message, 'invalid-envelope', validation.problems.join('; '));
      return null;
    }
    const routed = this.deps.subjects.parseEvent(message.subject);
    const envelope = validation.envelope;
    if (!routed || routed.tenantId !== envelope.tenant_id || routed.type !== envelope.type) {
      await this.deps.deadLetter.park(
        message,
        'subject-mismatch',
        `subject ${message.subject} does not match tenant_id ${envelope.tenant_id} and type ${envelope.type}`,
      );
      return null;
    }
    return { envelope, body };
  }

  private async deliver(
    envelope: EventEnvelope,
    endpoint: DirectoryEndpoint,
    payload: InboundPayload,
    parent: Context,
    publishedAtMs: number,
  ): Promise<void> {
    const identity: DeliveryIdentity = {
      delivery_id: newId('del'),
      event_id: envelope.id,
      endpoint_id: endpoint.id,
      tenant_id: envelope.tenant_id,
      event_type: envelope.type,
    };
    const { limits, recorder, runner, metrics } = this.deps;
    if (!limits.tryReserve(endpoint.id)) {
      const outcome = await recorder.record({
        deliveryId: identity.delivery_id,
        before: null,
        event: {
          type: DELIVERY_EVENT_TYPES.deferred,
          data: {
            ...identity,
            due_at: new Date(Date.now() + this.options.busyEndpointDelayMs).toISOString(),
            reason: 'endpoint_busy',
          },
        },
        metadata: { tenant_id: identity.tenant_id },
        payload,
      });
      if (outcome.committed) {
        metrics.deliveriesDeferred.inc();
      }
      return;
    }
    try {
      await limits.acquireGlobal();
      const outcome = await runner.run({
        identity,
        before: null,
        endpoint,
        body: payload.body,
        payload,
        parent,
      });
      if (outcome.committed && outcome.conclusion === 'succeeded') {
        metrics.publishToDelivered.observe(Math.max(0, Date.now() - publishedAtMs) / 1000);
      }
    } finally {
      limits.release(endpoint.id);
    }
  }

  /** On a redelivered message: endpoints that already have a delivery of this event. */
  private async endpointsAlreadyServed(eventId: string): Promise<Set<string>> {
    const rows: { endpoint_id: string }[] = await this.deps.dataSource.query(
      'SELECT endpoint_id FROM deliveries WHERE event_id = $1',
      [eventId],
    );
    return new Set(rows.map((row) => row.endpoint_id));
  }
}
