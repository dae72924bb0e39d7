import { Logger } from '@nestjs/common';
import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { Context } from '@opentelemetry/api';
import {
  derivedId,
  EventEnvelope,
  eventRetentionTime,
  RejectionReason,
  SubjectScheme,
  validateEnvelope,
} from '@svc/contracts';
import {
  decideDeferred,
  DeliveryIdentity,
  DeliveryWorkQueue,
  InboundPayload,
} from '@svc/deliveries';
import { extractTraceContext, traceCarrierOf } from '@svc/observability';
import type { EndpointEnvironment } from '@svc/webhook-endpoints';
import { isDeepStrictEqual } from 'node:util';
import { DeliveryMetrics } from '../delivery-metrics';
import { AttemptRunner } from '../dispatch/attempt-runner';
import { ConcurrencyLimits } from '../dispatch/concurrency-limits';
import { DirectoryEndpoint, EndpointDirectory } from '../fan-out/endpoint-directory';
import { DeliveryRecorder } from '../recording/delivery-recorder';
import { isDatabaseUnavailable, RecordingHealth } from '../recording/recording-health';
import {
  audienceOf,
  IntakeSource,
  reservedTypeProblem,
  routeOf,
} from '../operational-events/intake-source';
import { IntakeBackPressure, MessageInHand } from './back-pressure';
import { DeadLetterPark } from './dead-letter';

export interface IntakeOptions {
  /** Messages handled at once; also how many the consumer asks JetStream for. */
  maxMessagesInFlight: number;
  /** Deliveries of the messages in hand: see IntakeBackPressure. */
  maxDeliveriesInFlight: number;
  /**
   * How long a first attempt waits for a slot of an endpoint at its bound, and, if none comes,
   * how much later the schedule tries it.
   */
  busyEndpointDelayMs: number;
  /** Delay before JetStream redelivers a message whose handling failed (say, the database is away). */
  retryFailedMessageMs: number;
  /** The consumer's ack wait: messages in hand are marked in progress well within it. */
  ackWaitMs: number;
  /** Where delivery data may be written: within retention, and partitions made ahead (ADR 0023). */
  retention: { retentionMs: number; partitionWidthMs: number };
  /** The platform's events, or the service's own operational events (ADR 0030); default platform. */
  source?: IntakeSource;
}

interface ValidEvent {
  envelope: EventEnvelope;
  body: string;
  /** The environment whose endpoints receive it. */
  audience: EndpointEnvironment;
}

interface Rejection {
  reason: RejectionReason;
  detail: string;
}

/**
 * Builds the intake once the engine has its JetStream consumer (the composition root,
 * delivery.module.ts, says how; the engine says when).
 */
export class EventIntakeFactory {
  constructor(
    readonly create: (
      consumer: Consumer,
      js: JetStreamClient,
      source?: IntakeSource,
    ) => EventIntake,
  ) {}
}

/**
 * Takes events from the JetStream consumer and fans each out: one delivery per subscribed
 * endpoint, whose first attempt runs at once (or is put off to the schedule when the endpoint is
 * at its limit). Messages are handled concurrently; each is acknowledged once the record of
 * every one of its deliveries is durable, and an invalid one is parked on the dead-letter subject.
 */
export class EventIntake {
  private readonly logger = new Logger('EventIntake');
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly backPressure: IntakeBackPressure;
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
      queue: DeliveryWorkQueue;
      health: RecordingHealth;
    },
    private readonly options: IntakeOptions,
  ) {
    this.backPressure = new IntakeBackPressure(
      options.maxMessagesInFlight,
      options.maxDeliveriesInFlight,
    );
  }

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
      const inHand = this.backPressure.taken();
      // A message waits in hand while the database is away (its records held, or its handling
      // not started): kept in progress so that JetStream does not hand it out again meanwhile.
      const inProgress = setInterval(() => message.working(), this.options.ackWaitMs / 3);
      const handling = this.handle(message, inHand)
        .catch((error: unknown) => {
          if (isDatabaseUnavailable(error)) {
            this.deps.health.failed(error);
          }
          this.logger.error(
            `message ${message.seq} goes back to JetStream: ${(error as Error).message}`,
          );
          message.nak(this.options.retryFailedMessageMs);
        })
        .finally(() => clearInterval(inProgress));
      this.inFlight.add(handling);
      void handling.finally(() => {
        this.inFlight.delete(handling);
        inHand.finished();
      });
      // The next message waits until this one's deliveries are counted (at once, unless the
      // tenant's endpoints must be loaded), then for room among messages and deliveries.
      await Promise.race([inHand.fannedOut, handling]);
      await this.backPressure.roomForNext();
    }
  }

  /** `inHand.counted` is called once the message's deliveries are known (or it has none). */
  private async handle(message: JsMsg, inHand: MessageInHand): Promise<void> {
    this.deps.metrics.eventsReceived.inc();
    // No new message is taken while records cannot be written.
    await this.deps.health.whenHealthy();
    const event = this.accept(message);
    if ('reason' in event) {
      inHand.counted(0);
      await this.deps.deadLetter.park(message, event.reason, event.detail);
      return;
    }
    const { envelope, body, audience } = event;
    const ingested = await this.ingestedBefore(envelope);
    if (ingested === 'conflicting') {
      inHand.counted(0);
      await this.deps.deadLetter.park(
        message,
        'conflicting-duplicate',
        `tenant ${envelope.tenant_id} already published ${envelope.id} with another body; the first one stands`,
      );
      return;
    }
    // The same event again (a publisher's retry after JetStream's duplicate window): its
    // deliveries exist, so nothing is sent again. A redelivery of one message is different: the
    // engine may have stopped half-way, so it serves the endpoints still without a delivery.
    if (ingested === 'same' && !message.info.redelivered) {
      inHand.counted(0);
      this.deps.metrics.eventsDuplicate.inc();
      message.ack();
      return;
    }
    const subscribers = await this.deps.directory.subscribers(
      envelope.tenant_id,
      envelope.type,
      audience,
    );
    const served =
      ingested === 'same'
        ? await this.deps.queue.endpointsServed(envelope.tenant_id, envelope.id)
        : null;
    const targets = served
      ? subscribers.filter((endpoint) => !served.has(endpoint.id))
      : subscribers;
    inHand.counted(targets.length);
    const parent = extractTraceContext(message.headers);
    const payload: InboundPayload = {
      eventId: envelope.id,
      tenantId: envelope.tenant_id,
      type: envelope.type,
      body,
      traceContext: traceCarrierOf(parent),
      retentionKey: eventRetentionTime(envelope.created_at, new Date(), this.options.retention),
    };
    const publishedAtMs = message.time.getTime();
    await Promise.all(
      targets.map((endpoint) =>
        this.deliver(envelope, endpoint, payload, parent, publishedAtMs).finally(() =>
          inHand.deliveryFinished(),
        ),
      ),
    );
    message.ack();
  }

  /** The envelope, or why the message is not one. */
  private accept(message: JsMsg): ValidEvent | Rejection {
    const body = Buffer.from(message.data).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      return { reason: 'invalid-json', detail: (error as Error).message };
    }
    const validation = validateEnvelope(parsed);
    if (!validation.ok) {
      return { reason: 'invalid-envelope', detail: validation.problems.join('; ') };
    }
    const source = this.options.source ?? 'platform';
    const routed = routeOf(this.deps.subjects, source, message.subject);
    const envelope = validation.envelope;
    if (!routed || routed.tenantId !== envelope.tenant_id || routed.type !== envelope.type) {
      return {
        reason: 'subject-mismatch',
        detail: `subject ${message.subject} does not match tenant_id ${envelope.tenant_id} and type ${envelope.type}`,
      };
    }
    const reserved = reservedTypeProblem(source, envelope.type);
    if (reserved) {
      return { reason: 'reserved-type', detail: reserved };
    }
    const audience = audienceOf(source, envelope);
    if (!audience) {
      return { reason: 'invalid-envelope', detail: '/data/environment: must be live or test' };
    }
    return { envelope, body, audience };
  }

  private async deliver(
    envelope: EventEnvelope,
    endpoint: DirectoryEndpoint,
    payload: InboundPayload,
    parent: Context,
    publishedAtMs: number,
  ): Promise<void> {
    const identity: DeliveryIdentity = {
      // Every copy of the event names its delivery to this endpoint alike: copies racing in two
      // engines append to one stream, and the log lets one win (ADR 0016, 0023).
      delivery_id: derivedId('del', payload.retentionKey, [
        envelope.tenant_id,
        envelope.id,
        endpoint.id,
      ]),
      event_id: envelope.id,
      endpoint_id: endpoint.id,
      tenant_id: envelope.tenant_id,
      event_type: envelope.type,
    };
    const { limits, recorder, runner, metrics, health } = this.deps;
    // No attempt starts while its record could not be written (it would be sent again later).
    await health.whenHealthy();
    const attempted = await limits.withSlot(endpoint, this.options.busyEndpointDelayMs, (release) =>
      runner.run(
        { identity, before: null, endpoint, body: payload.body, payload, parent },
        release,
      ),
    );
    if (!attempted.ran) {
      // A rate-limited delivery waits for a later second exactly as a busy endpoint's does: the
      // log records it as `endpoint_busy` (the endpoint can take no more now, ADR 0028), and
      // neither uses an attempt.
      const rateLimited = attempted.reason === 'rate_limited';
      const delayMs = rateLimited ? attempted.retryInMs : this.options.busyEndpointDelayMs;
      const [deferred] = decideDeferred({ identity, delayMs }, null, new Date());
      const receipt = await recorder.record({
        deliveryId: identity.delivery_id,
        before: null,
        event: deferred,
        metadata: { tenant_id: identity.tenant_id },
        payload,
      });
      if (receipt.committed) {
        (rateLimited ? metrics.deliveriesRateLimited : metrics.deliveriesDeferred).inc();
      }
      return;
    }
    const receipt = attempted.value;
    if (receipt.committed && receipt.conclusion === 'succeeded') {
      metrics.publishToDelivered.observe(Math.max(0, Date.now() - publishedAtMs) / 1000);
    }
  }

  /**
   * Whether this tenant's event with this id was ingested before (its body is stored with its
   * first delivery record), and if so whether with the same content. Key order and spacing do
   * not make a different event: the content is compared, not the bytes.
   */
  private async ingestedBefore(envelope: EventEnvelope): Promise<'new' | 'same' | 'conflicting'> {
    const stored = await this.deps.queue.storedBody(envelope.tenant_id, envelope.id);
    if (stored === null) {
      return 'new';
    }
    return isDeepStrictEqual(JSON.parse(stored), envelope) ? 'same' : 'conflicting';
  }
}
