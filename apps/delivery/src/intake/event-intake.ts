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
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { DeliveryMetrics, IntakeKind } from '../delivery-metrics';
import { AttemptRunner } from '../dispatch/attempt-runner';
import { ConcurrencyLimits, SlotClass } from '../dispatch/concurrency-limits';
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
import { EventsInHand } from './events-in-hand';
import { PulledMessages, WaitingMessage } from './pulled-messages';
import { RepliesInOneWrite } from './replies-in-one-write';
import { TenantSlotWaits } from './tenant-slot-waits';
import { TenantWindow } from './tenant-window';
import { DeadLetterPark } from './dead-letter';

/**
 * How long the pulling loop skips messages before it lets the event loop run other work: a pull
 * of a thousand skipped messages would otherwise hold it for tens of milliseconds.
 */
const SKIPPING_SLICE_MS = 10;

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
  /**
   * Messages asked of JetStream in one pull at most, and while most of the last pull was skipped
   * (`skipPullBatch`): see `pull()`.
   */
  pullBatch: number;
  skipPullBatch: number;
  /** How long a pull waits on the server for messages when there are none. */
  pullExpiresMs: number;
  /** After a pull failed (NATS away, the consumer gone), the next one waits this long. */
  retryFailedPullMs: number;
  /** How many of the last messages taken count for who the intake is busy with. */
  tenantWindow: number;
  /** Messages whose fan-out (stored-body check, endpoints) may run at once. */
  maxFanningOut: number;
  /** While this many of a tenant's deliveries wait for their endpoint's slot, its next message waits. */
  maxSlotWaitsPerTenant: number;
  /** How often a lane yielding to the main intake looks again (IntakeRole.yieldWhile). */
  yieldPollMs: number;
}

/** A message an intake pulled, as its routing sees it. */
export interface PulledMessage {
  /** The tenant its subject names; null when the subject names none. */
  tenantId: string | null;
  streamSeq: number;
  /** 1 the first time JetStream delivers it. */
  deliveryCount: number;
  /** Deliveries of the tenant's messages this intake has in hand. */
  tenantDeliveriesInHand: number;
}

/** Which consumer an intake reads, and how (ADR 0030, ADR 0032). */
export interface IntakeRole {
  /** The platform's events, or the service's own operational events (ADR 0030); default platform. */
  source?: IntakeSource;
  /** Default: `operational` for that source, else `main`. A lane's attempts take lane slots. */
  kind?: IntakeKind;
  /** The main intake: whether a hot tenant's lane covers a message (acknowledged unhandled). */
  coveredByLane?: (tenantId: string, streamSeq: number) => boolean;
  /**
   * The main intake: whether a pulled message is one of a laned tenant's from before its lane,
   * which neither holds up the next pull nor counts as the intake being behind (ADR 0032).
   */
  pullsPast?: (tenantId: string, streamSeq: number) => boolean;
  /**
   * How long to put a message back for instead of handling it now, or null: a closing lane's
   * message after its end, or, in the main intake, a laned tenant's message from before its lane
   * while that tenant already holds its share of the intake (ADR 0032).
   */
  putBackMs?: (message: PulledMessage) => number | null;
  /** A lane: deliveries in hand at most (its part of the engine's concurrency), if not the engine's. */
  maxDeliveriesInFlight?: number;
  /**
   * A lane: takes no new message while this says so (the main intake is behind the stream, and
   * every other tenant's events wait for it), checked every `yieldPollMs`.
   */
  yieldWhile?: () => boolean;
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
    readonly create: (consumer: Consumer, js: JetStreamClient, role?: IntakeRole) => EventIntake,
  ) {}
}

/**
 * Takes events from the JetStream consumer and fans each out: one delivery per subscribed
 * endpoint, whose first attempt runs at once (or is put off to the schedule when the endpoint is
 * at its limit). Messages are handled concurrently; each is acknowledged once the record of
 * every one of its deliveries is durable, and an invalid one is parked on the dead-letter subject.
 *
 * It pulls only what it has room for (ADR 0032): a message delivered to an engine waits in no
 * client-side buffer, so the main consumer's delivered sequence is close to what is in hand, and
 * a hot tenant's backlog stays in the stream, where its lane takes it over.
 */
export class EventIntake {
  private readonly logger = new Logger('EventIntake');
  private batch: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly backPressure: IntakeBackPressure;
  private stopping = false;
  private readonly stopped = new AbortController();
  private readonly kind: IntakeKind;
  private readonly slotClass: SlotClass;
  /** Deliveries in hand by the tenant their message's subject names (ADR 0032). */
  private readonly deliveriesByTenant = new Map<string, number>();
  /** The tenants of the last messages taken: who crowds the intake (ADR 0032). */
  private readonly recentTenants: TenantWindow;
  private lastPullMostlySkipped = false;
  /** The last message pulled: when it was published, and how many were behind it then. */
  private lastPulledPublishedAt = 0;
  private lastPulledPendingBehind = 0;
  /** Pulled, not skipped, not yet taken into hand: kept in progress meanwhile. */
  private readonly pulled: PulledMessages<JsMsg>;
  /** The answers to messages skipped or put back as they were pulled: see RepliesInOneWrite. */
  private readonly passedOver = new RepliesInOneWrite();
  private wakeTakerFn: (() => void) | undefined;
  private readonly whenPulledTaken: (() => void)[] = [];
  /** The fan-out going on for each tenant: one at a time per tenant (see `tenantMayTake`). */
  private readonly fanningOutByTenant = new Map<string, Promise<void>>();
  private readonly slotWaits = new TenantSlotWaits();
  private inProgress: NodeJS.Timeout | undefined;

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
      eventsInHand: EventsInHand;
    },
    private readonly options: IntakeOptions,
    private readonly role: IntakeRole = {},
  ) {
    this.backPressure = new IntakeBackPressure(
      options.maxMessagesInFlight,
      role.maxDeliveriesInFlight ?? options.maxDeliveriesInFlight,
      Date.now,
      options.maxFanningOut,
    );
    this.kind = role.kind ?? (role.source === 'operational' ? 'operational' : 'main');
    this.recentTenants = new TenantWindow(options.tenantWindow);
    this.slotClass = this.kind === 'lane' ? 'lane' : 'main';
    this.pulled = new PulledMessages((tenantId) => this.tenantMayTake(tenantId));
  }

  start(): Promise<void> {
    this.loop = Promise.all([this.pullWhileRunning(), this.takeWhileRunning()]).then(
      () => undefined,
    );
    // Pulled messages waiting for room are kept from JetStream's redelivery like those in hand.
    this.inProgress = setInterval(
      () => this.pulled.forEach((waiting) => waiting.message.working()),
      this.options.ackWaitMs / 3,
    );
    return Promise.resolve();
  }

  /** Stops taking messages and waits for those in hand; unhandled ones go back to JetStream. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    this.wakeTaker();
    this.pulledDrained();
    this.batch?.stop();
    await this.loop;
    this.passedOver.sendAll();
    clearInterval(this.inProgress);
    for (const waiting of this.pulled.takeAll()) {
      waiting.message.nak();
    }
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * How long this intake has waited on the messages in hand (their fan-out, or room among them)
   * rather than for new messages, since it started: its saturation, over time.
   */
  get waitedMs(): number {
    return this.backPressure.waitedMs;
  }

  /** The tenants of the last messages this intake took into hand (skipped ones not counted). */
  get recent(): Pick<TenantWindow, 'size' | 'busiest' | 'otherTenantAgoMs'> {
    return this.recentTenants;
  }

  /**
   * How far behind the stream this intake is: how long ago the oldest message it pulled that may
   * be taken now and holds up the next pull was published (one waiting for its tenant's earlier
   * message waits for that tenant, not for the engine; a laned tenant's from before its lane is
   * not the other tenants' wait); else, while JetStream had messages behind the last one it
   * pulled (its consumer's pending count, delivered with each message), how long ago that one
   * was published; else 0, caught up. Lanes yield to the main intake while it is behind
   * (ADR 0032).
   */
  lagMs(): number {
    const oldest = this.pulled.peekNext(this.holdsUpPull);
    if (oldest) {
      return Math.max(0, Date.now() - oldest.publishedAt);
    }
    return this.lastPulledPendingBehind > 0
      ? Math.max(0, Date.now() - this.lastPulledPublishedAt)
      : 0;
  }

  /** Messages taken into hand, and pulled ones waiting to be taken: what it holds of its consumer. */
  get messagesHeld(): number {
    return this.backPressure.messagesInHand + this.pulled.size;
  }

  /**
   * A lane just became known (ADR 0032). The pulled messages it covers are skipped now, as they
   * would have been had it been known when they were pulled, rather than handled by this intake
   * and the lane both; its tenant's from before its start no longer hold up the next pull
   * (`IntakeRole.pullsPast`).
   */
  passOverCovered(): void {
    const { coveredByLane } = this.role;
    if (!coveredByLane || this.pulled.size === 0) {
      return;
    }
    const covered = this.pulled.takeWhere(
      ({ tenantId, message }) => tenantId !== null && coveredByLane(tenantId, message.seq),
    );
    for (const { message } of covered) {
      message.ack();
      this.deps.metrics.messagesSkipped.inc();
    }
    if (covered.length > 0) {
      this.wakeTaker();
    }
    // The pulling loop goes on if what is left does not hold it up.
    this.pulledDrained();
  }

  /** A lane's part of the engine's concurrency changes as lanes open and close. */
  boundDeliveries(maxDeliveries: number): void {
    this.backPressure.boundDeliveries(maxDeliveries);
  }

  /**
   * Pulls messages, skips at once those a lane covers (they take no room), and leaves the others
   * to the taking loop. The next pull waits until every message pulled was taken and there is
   * room in hand; it asks for as many as there is room for, at most `pullBatch`
   * (JetStream's `consume()` would keep pulling as messages arrive, whether or not they can be
   * handled, up to the consumer's max ack pending), or `skipPullBatch` while the last pull was
   * mostly skipped messages, so that the main intake passes a laned tenant's backlog in few
   * round trips however busy the engine is.
   */
  private async pullWhileRunning(): Promise<void> {
    while (!this.stopping) {
      await this.untilPulledTaken();
      await this.backPressure.roomForNext();
      if (this.stopping) {
        break;
      }
      const size = this.lastPullMostlySkipped
        ? this.options.skipPullBatch
        : Math.max(1, Math.min(this.options.pullBatch, this.backPressure.messageRoom));
      const counts = { pulled: 0, skipped: 0 };
      let sliceStartedAt = performance.now();
      try {
        this.batch = await this.deps.consumer.fetch({
          max_messages: size,
          expires: this.options.pullExpiresMs,
        });
        const messages = this.batch[Symbol.asyncIterator]();
        for (;;) {
          const next = await messages.next();
          if (next.done) {
            break;
          }
          counts.pulled += 1;
          if (this.sort(next.value)) {
            counts.skipped += 1;
            // Skipped messages are handled without a pause: let the rest of the engine (the
            // other tenants' attempts) in between, every SKIPPING_SLICE_MS.
            if (performance.now() - sliceStartedAt >= SKIPPING_SLICE_MS) {
              await new Promise<void>((resolve) => setImmediate(resolve));
              sliceStartedAt = performance.now();
            }
          }
        }
      } catch (error) {
        if (this.stopping) {
          break;
        }
        // A lane's consumer is deleted when the lane closes, before every engine has stopped
        // pulling from it: not worth a warning (the main intake's failures are).
        const failure = `pulling from JetStream failed (${(error as Error).message}); trying again in ${this.options.retryFailedPullMs} ms`;
        if (this.kind === 'lane') {
          this.logger.debug(failure);
        } else {
          this.logger.warn(failure);
        }
        await sleep(this.options.retryFailedPullMs, undefined, {
          signal: this.stopped.signal,
        }).catch(() => undefined);
      } finally {
        this.batch = undefined;
      }
      this.lastPullMostlySkipped = counts.skipped * 2 > counts.pulled;
    }
  }

  /**
   * A pulled message: skipped (acknowledged unhandled, true) when a lane covers it, put back for
   * later, or left to the taking loop.
   */
  private sort(message: JsMsg): boolean {
    const publishedAt = message.time.getTime();
    this.lastPulledPublishedAt = publishedAt;
    this.lastPulledPendingBehind = message.info.pending;
    if (this.stopping) {
      message.nak();
      return false;
    }
    const tenantId = this.tenantOf(message);
    if (tenantId !== null && this.role.coveredByLane?.(tenantId, message.seq)) {
      this.passedOver.add(() => message.ack());
      this.deps.metrics.messagesSkipped.inc();
      return true;
    }
    const putBackMs =
      this.role.putBackMs?.({
        tenantId,
        streamSeq: message.seq,
        deliveryCount: message.info.deliveryCount,
        tenantDeliveriesInHand:
          tenantId === null ? 0 : (this.deliveriesByTenant.get(tenantId) ?? 0),
      }) ?? null;
    if (putBackMs !== null) {
      this.passedOver.add(() => message.nak(putBackMs));
      return false;
    }
    this.pulled.push({ message, tenantId, publishedAt });
    this.wakeTaker();
    return false;
  }

  /**
   * Takes the pulled messages into hand as room allows: the first whose tenant may take one
   * (PulledMessages, `tenantMayTake`), so that each tenant's messages go in their order and none
   * waits for another tenant's.
   */
  private async takeWhileRunning(): Promise<void> {
    while (!this.stopping) {
      if (this.pulled.size === 0) {
        this.pulledDrained();
        await new Promise<void>((resolve) => (this.wakeTakerFn = resolve));
        continue;
      }
      while (!this.stopping && this.role.yieldWhile?.()) {
        await sleep(this.options.yieldPollMs, undefined, { signal: this.stopped.signal }).catch(
          () => undefined,
        );
      }
      await this.backPressure.roomForNext();
      const next = this.pulled.takeNext();
      this.pulledDrained();
      if (!next) {
        // Every pulled message waits for its tenant's earlier one: the next may come from a
        // fan-out or a slot wait ending.
        await this.backPressure.waiting(
          Promise.race([
            new Promise<void>((resolve) => (this.wakeTakerFn = resolve)),
            this.slotWaits.anyEnded(),
          ]),
        );
        continue;
      }
      if (this.stopping) {
        next.message.nak();
        continue;
      }
      this.deps.metrics.intakeWait.observe(
        { intake: this.kind },
        Math.max(0, Date.now() - next.publishedAt) / 1000,
      );
      this.handleInHand(next.message, next.tenantId);
    }
    this.pulledDrained();
  }

  /**
   * Whether a tenant's next message may be taken now. Not while its last one fans out (the
   * stored-body check and its endpoints), as every message did before fan-outs ran side by side:
   * several fan-outs of one tenant at once took its messages in faster than its endpoints' slots
   * freed (at one hot endpoint a fifth of its deliveries waited past the busy delay and went to
   * the schedule, 346 -> 112 deliveries/s). Nor while enough of its deliveries wait for their
   * endpoint's slot: the stored-body check is faster than a hot endpoint (144/s with 1,250
   * deferrals per 10,000 at one answering in 6 ms).
   */
  private tenantMayTake(tenantId: string): boolean {
    return (
      !this.fanningOutByTenant.has(tenantId) &&
      this.slotWaits.of(tenantId) < this.options.maxSlotWaitsPerTenant
    );
  }

  private wakeTaker(): void {
    const wake = this.wakeTakerFn;
    this.wakeTakerFn = undefined;
    wake?.();
  }

  /**
   * Resolves once every pulled message that holds up the next pull was taken (or the intake
   * stops). A laned tenant's messages from before its lane do not (ADR 0032): they are few (those
   * pulled before the lane was known), taken one at a time, and every other tenant's events wait
   * behind the next pull in the stream.
   */
  private untilPulledTaken(): Promise<void> {
    if (!this.pullHeldUp() || this.stopping) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.whenPulledTaken.push(resolve));
  }

  private pullHeldUp(): boolean {
    return this.pulled.some(this.holdsUpPull);
  }

  private readonly holdsUpPull = ({ tenantId, message }: WaitingMessage<JsMsg>): boolean =>
    tenantId === null || !this.role.pullsPast?.(tenantId, message.seq);

  /** Wakes the pulling loop if nothing pulled holds it up any longer. */
  private pulledDrained(): void {
    if (this.whenPulledTaken.length > 0 && (this.stopping || !this.pullHeldUp())) {
      this.whenPulledTaken.splice(0).forEach((wake) => wake());
    }
  }

  private tenantOf(message: JsMsg): string | null {
    return (
      routeOf(this.deps.subjects, this.role.source ?? 'platform', message.subject)?.tenantId ?? null
    );
  }

  /** Starts handling a message (the taking loop waits for room for the next). */
  private handleInHand(message: JsMsg, tenantId: string | null): void {
    if (tenantId !== null) {
      this.recentTenants.note(tenantId);
    }
    const inHand = this.countedFor(tenantId, this.backPressure.taken());
    if (tenantId !== null) {
      const fannedOut = inHand.fannedOut;
      this.fanningOutByTenant.set(tenantId, fannedOut);
      void fannedOut.then(() => {
        if (this.fanningOutByTenant.get(tenantId) === fannedOut) {
          this.fanningOutByTenant.delete(tenantId);
          this.wakeTaker();
        }
      });
    }
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
  }

  /** The message's deliveries, counted for its tenant too (`PulledMessage.tenantDeliveriesInHand`). */
  private countedFor(tenantId: string | null, inHand: MessageInHand): MessageInHand {
    if (tenantId === null) {
      return inHand;
    }
    const add = (change: number) => {
      const deliveries = (this.deliveriesByTenant.get(tenantId) ?? 0) + change;
      if (deliveries > 0) {
        this.deliveriesByTenant.set(tenantId, deliveries);
      } else {
        this.deliveriesByTenant.delete(tenantId);
      }
    };
    return {
      fannedOut: inHand.fannedOut,
      counted: (deliveries) => {
        add(deliveries);
        inHand.counted(deliveries);
      },
      deliveryFinished: () => {
        add(-1);
        inHand.deliveryFinished();
      },
      finished: () => inHand.finished(),
    };
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
    const release = await this.deps.eventsInHand.hold(envelope.tenant_id, envelope.id);
    try {
      await this.fanOut(message, inHand, envelope, body, audience);
    } finally {
      release();
    }
  }

  /** Handles a valid event, no other copy of it being in hand (EventsInHand). */
  private async fanOut(
    message: JsMsg,
    inHand: MessageInHand,
    envelope: EventEnvelope,
    body: string,
    audience: EndpointEnvironment,
  ): Promise<void> {
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
    // A view of the message's bytes, not a copy of them.
    const { buffer, byteOffset, byteLength } = message.data;
    const body = Buffer.from(buffer, byteOffset, byteLength).toString('utf8');
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
    const source = this.role.source ?? 'platform';
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
    const slotFound = this.slotWaits.begin(envelope.tenant_id);
    const attempted = await limits
      .withSlot(
        endpoint,
        this.options.busyEndpointDelayMs,
        (release) =>
          runner.run(
            { identity, before: null, endpoint, body: payload.body, payload, parent },
            release,
          ),
        // No global slot is taken while the database is away (AttemptRunner looks again last).
        () => {
          slotFound();
          return health.whenHealthy();
        },
        this.slotClass,
      )
      .finally(slotFound);
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
