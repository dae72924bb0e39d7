import { Context } from '@opentelemetry/api';
import { derivedId, EventEnvelope, eventRetentionTime, SubjectScheme } from '@svc/contracts';
import { decideDeferred, decideIngest, DeliveryIdentity, InboundPayload } from '@svc/deliveries';
import { extractTraceContext, traceCarrierOf } from '@svc/observability';
import type { DeliveryMetrics } from '../../delivery-metrics';
import type { SlotClass } from '../../dispatch/concurrency-limits';
import type { Dispatcher } from '../../dispatch/dispatcher';
import { type DirectoryEndpoint, filterAdmits } from '../../fan-out/endpoint-directory';
import type { IntakeSource } from '../../operational-events/intake-source';
import type {
  Clock,
  IngestLedger,
  IntakeMessage,
  OrderedQueues,
  RecordingGate,
  RecordStore,
  SubscriberLookup,
} from '../../ports';
import type { AdmittedMessage } from '../admission';
import type { EventsInHand } from '../events-in-hand';
import type { HandleOutcome } from '../message-replies';
import { AcceptedEvent, acceptMessage } from './accept-message';

export interface EventHandlerDeps {
  subjects: SubjectScheme;
  ledger: IngestLedger;
  subscribers: Pick<SubscriberLookup, 'subscribers' | 'endpoint'>;
  dispatcher: Pick<Dispatcher, 'dispatch'>;
  records: RecordStore;
  recording: Pick<RecordingGate, 'whenHealthy'>;
  /** One for all the engine's intakes: a lane and the main intake may hold copies of one event. */
  eventsInHand: EventsInHand;
  /** Told when a FIFO endpoint's queue has a delivery due (the retry scheduler). */
  orderedQueues: OrderedQueues;
  metrics: Pick<
    DeliveryMetrics,
    | 'eventsReceived'
    | 'eventsDuplicate'
    | 'deliveriesFiltered'
    | 'deliveriesDeferred'
    | 'deliveriesRateLimited'
    | 'publishToDelivered'
  >;
  clock: Clock;
}

export interface EventHandlerOptions {
  /** Where delivery data may be written: within retention, and partitions made ahead (ADR 0023). */
  retention: { retentionMs: number; partitionWidthMs: number };
  /**
   * How long a first attempt waits for a slot of an endpoint at its bound, and, if none comes,
   * how much later the schedule tries it.
   */
  busyEndpointDelayMs: number;
}

/** An endpoint of the event, with the number its delivery claimed. */
interface NumberedTarget {
  endpoint: DirectoryEndpoint;
  sequence: number;
  /** Its delivery waits for its turn in the endpoint's FIFO queue. */
  ordered: boolean;
}

/** What the intake gives the handler of one message. */
export interface Handling {
  /** Where its deliveries are counted (back-pressure), and its tenant's next message let in. */
  inHand: AdmittedMessage;
  /** Counts a wait of one of its deliveries for its endpoint's slot (TenantSlotWaits). */
  beginSlotWait: () => () => void;
}

/**
 * Handles one message taken into hand, and says what is to become of it: accept the event,
 * decide whether it was ingested before (`decideIngest`), fan it out to its tenant's subscribed
 * endpoints, and make each delivery's first attempt (or record it deferred when its endpoint is
 * busy or at its rate limit). It replies nothing itself: the intake turns its outcome into an
 * acknowledgement, a park or a retry (MessageReplies). A failure it throws means the message goes
 * back to JetStream.
 */
export class EventHandler {
  constructor(
    private readonly deps: EventHandlerDeps,
    private readonly options: EventHandlerOptions,
    private readonly source: IntakeSource,
    private readonly slotClass: SlotClass,
  ) {}

  /** `inHand.counted` is called once the message's deliveries are known (or it has none). */
  async handle(message: IntakeMessage, handling: Handling): Promise<HandleOutcome> {
    this.deps.metrics.eventsReceived.inc();
    // No new message is taken while records cannot be written.
    await this.deps.recording.whenHealthy();
    const event = acceptMessage(message, this.deps.subjects, this.source);
    if ('reason' in event) {
      handling.inHand.counted(0);
      return { kind: 'park', reason: event.reason, detail: event.detail };
    }
    const release = await this.deps.eventsInHand.hold(event.envelope.tenant_id, event.envelope.id);
    try {
      return await this.fanOut(message, handling, event);
    } finally {
      release();
    }
  }

  /** Handles a valid event, no other copy of it being in hand (EventsInHand). */
  private async fanOut(
    message: IntakeMessage,
    handling: Handling,
    { envelope, body, audience }: AcceptedEvent,
  ): Promise<HandleOutcome> {
    const { ledger, subscribers, metrics } = this.deps;
    const subscribed = await subscribers.subscribers(envelope.tenant_id, envelope.type, audience);
    // Decided before numbering: an endpoint whose filter refuses the event gets no delivery and
    // no sequence number, so its numbers stay without gaps (ADR 0045, 0046).
    const endpoints = subscribed.filter((endpoint) => filterAdmits(endpoint, envelope));
    const { redelivered } = message.info;
    const parent = extractTraceContext(message.headers);
    const payload: InboundPayload = {
      eventId: envelope.id,
      tenantId: envelope.tenant_id,
      type: envelope.type,
      body,
      traceContext: traceCarrierOf(parent),
      retentionKey: eventRetentionTime(
        envelope.created_at,
        new Date(this.deps.clock.now()),
        this.options.retention,
      ),
    };
    // The body is stored and every delivery numbered before the first POST (ADR 0045); an event
    // no endpoint subscribes to is only compared with a stored body.
    const claiming = ledger.claimForNewEvent(
      payload,
      endpoints.map((endpoint) => endpoint.id),
      orderedDeliveriesOf(payload, endpoints),
    );
    // Queued: the tenant's next message is numbered after this one, so it may come in now and
    // share the next claim statement (ADR 0050). A redelivered copy may resume under numbers of
    // its own, claimed after this one, so the next waits for it.
    if (!redelivered) {
      handling.inHand.numberingAsked();
    }
    const claim = await claiming;
    let targets: NumberedTarget[];
    if (claim.kind === 'claimed') {
      // Counted when the event is first taken in, not again for a redelivered or duplicate copy.
      const filteredOut = subscribed.length - endpoints.length;
      if (filteredOut > 0) {
        metrics.deliveriesFiltered.inc({ reason: 'filter' }, filteredOut);
      }
      targets = endpoints.map((endpoint) => ({
        endpoint,
        sequence: claim.numbers.get(endpoint.id)!,
        ordered: endpoint.ordering === 'fifo',
      }));
    } else {
      const ingest = decideIngest(claim.storedBody, envelope, redelivered);
      if (ingest === 'conflict') {
        handling.inHand.counted(0);
        return {
          kind: 'park',
          reason: 'conflicting-duplicate',
          detail: `tenant ${envelope.tenant_id} already published ${envelope.id} with another body; the first one stands`,
        };
      }
      if (ingest === 'duplicate') {
        handling.inHand.counted(0);
        metrics.eventsDuplicate.inc();
        return { kind: 'ack' };
      }
      targets = await this.resumedTargets(payload, endpoints);
    }
    handling.inHand.counted(targets.length);
    const publishedAtMs = message.time.getTime();
    await Promise.all(
      targets.map((target) =>
        this.firstAttempt(envelope, target, payload, parent, publishedAtMs, handling).finally(() =>
          handling.inHand.deliveryFinished(),
        ),
      ),
    );
    return { kind: 'ack' };
  }

  /**
   * A redelivered message: the engine may have stopped half-way, so only the endpoints still
   * without a delivery are served, each under the number it claimed. An endpoint that claimed a
   * number and no longer subscribes, or whose filter now refuses the event, is served too, or its
   * receivers would see a gap that never closes; one deleted or disabled since is not. A delivery placed in its endpoint's FIFO queue
   * when numbered stays ordered, whatever the endpoint's ordering is now.
   */
  private async resumedTargets(
    payload: InboundPayload,
    subscribed: DirectoryEndpoint[],
  ): Promise<NumberedTarget[]> {
    const { ledger, subscribers } = this.deps;
    const { numbers, queued } = await ledger.claimForResumedEvent(
      payload,
      subscribed.map((endpoint) => endpoint.id),
      orderedDeliveriesOf(payload, subscribed),
    );
    const served = await ledger.endpointsServed(payload.tenantId, payload.eventId);
    const endpoints = [...subscribed];
    for (const endpointId of numbers.keys()) {
      if (!subscribed.some((endpoint) => endpoint.id === endpointId)) {
        const unsubscribed = await subscribers.endpoint(payload.tenantId, endpointId);
        if (unsubscribed && unsubscribed.status !== 'disabled') {
          endpoints.push(unsubscribed);
        }
      }
    }
    return endpoints
      .filter((endpoint) => !served.has(endpoint.id))
      .map((endpoint) => ({
        endpoint,
        sequence: numbers.get(endpoint.id)!,
        ordered: queued.has(endpoint.id),
      }));
  }

  private async firstAttempt(
    envelope: EventEnvelope,
    { endpoint, sequence, ordered }: NumberedTarget,
    payload: InboundPayload,
    parent: Context,
    publishedAtMs: number,
    handling: Handling,
  ): Promise<void> {
    const identity: DeliveryIdentity = {
      delivery_id: deliveryIdOf(payload, endpoint),
      event_id: envelope.id,
      endpoint_id: endpoint.id,
      tenant_id: envelope.tenant_id,
      event_type: envelope.type,
      sequence,
    };
    const { metrics, clock } = this.deps;
    if (ordered) {
      await this.queueForItsTurn(identity, payload);
      return;
    }
    const dispatched = await this.deps.dispatcher.dispatch(
      { identity, before: null, endpoint, body: payload.body, payload, parent },
      {
        slotWaitMs: this.options.busyEndpointDelayMs,
        slotClass: this.slotClass,
        beginSlotWait: handling.beginSlotWait,
      },
    );
    if (dispatched.kind === 'attempted') {
      const { receipt } = dispatched;
      if (receipt.committed && receipt.conclusion === 'succeeded') {
        metrics.publishToDelivered.observe(Math.max(0, clock.now() - publishedAtMs) / 1000);
      }
      return;
    }
    // A rate-limited delivery waits for a later second exactly as a busy endpoint's does: the
    // log records it as `endpoint_busy` (the endpoint can take no more now, ADR 0028), and
    // neither uses an attempt.
    const rateLimited = dispatched.kind === 'rate-limited';
    const delayMs = rateLimited ? dispatched.retryInMs : this.options.busyEndpointDelayMs;
    const [deferred] = decideDeferred({ identity, delayMs }, null, new Date(clock.now()));
    const receipt = await this.deps.records.record({
      deliveryId: identity.delivery_id,
      before: null,
      event: deferred,
      metadata: { tenant_id: identity.tenant_id },
      payload,
    });
    if (receipt.committed) {
      (rateLimited ? metrics.deliveriesRateLimited : metrics.deliveriesDeferred).inc();
    }
  }

  /**
   * A FIFO endpoint's delivery is never sent from the intake: it is recorded deferred (`ordered`,
   * due now), which makes its place in the endpoint's queue due, and the message is acknowledged;
   * the scheduler sends the queue's head, one at a time (ADR 0045). Nothing holds the JetStream
   * message meanwhile. The queue is told, so that an idle endpoint's head goes at once rather than
   * at the scheduler's next round.
   */
  private async queueForItsTurn(identity: DeliveryIdentity, payload: InboundPayload) {
    const [deferred] = decideDeferred(
      { identity, delayMs: 0, reason: 'ordered' },
      null,
      new Date(this.deps.clock.now()),
    );
    await this.deps.records.record({
      deliveryId: identity.delivery_id,
      before: null,
      event: deferred,
      metadata: { tenant_id: identity.tenant_id },
      payload,
      // The queue's place is not due until this is durable.
      urgent: true,
    });
    this.deps.orderedQueues.kick(identity.endpoint_id);
  }
}

/**
 * Every copy of the event names its delivery to an endpoint alike: copies racing in two engines
 * append to one stream, and the log lets one win (ADR 0016, 0023).
 */
function deliveryIdOf(payload: InboundPayload, endpoint: DirectoryEndpoint): string {
  return derivedId('del', payload.retentionKey, [payload.tenantId, payload.eventId, endpoint.id]);
}

/** The deliveries of the event to FIFO endpoints: each takes its place in its queue when numbered. */
function orderedDeliveriesOf(payload: InboundPayload, endpoints: readonly DirectoryEndpoint[]) {
  return endpoints
    .filter((endpoint) => endpoint.ordering === 'fifo')
    .map((endpoint) => ({ endpointId: endpoint.id, deliveryId: deliveryIdOf(payload, endpoint) }));
}
