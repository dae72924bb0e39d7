import { Logger } from '@nestjs/common';
import { decideCancelled, DeliveryRecord, InboundEvent, isTestDelivery } from '@svc/deliveries';
import { contextFromCarrier } from '@svc/observability';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryMetrics } from '../delivery-metrics';
import type { Dispatcher } from '../dispatch/dispatcher';
import type {
  DeliverySchedule,
  OrderedQueues,
  RecordingGate,
  RecordStore,
  SubscriberLookup,
} from '../ports';
import { isDatabaseUnavailable } from '../recording/recording-health';

export interface SchedulerOptions {
  intervalMs: number;
  /** How long a claim holds before another engine may take the row (covers one attempt and its record). */
  leaseMs: number;
  batchSize: number;
  /** When a claimed delivery's endpoint is at its limit, the claim is pushed back this long. */
  busyEndpointDelayMs: number;
  globalMax: number;
  /** How often the due backlog is counted for its gauge. */
  backlogSampleMs: number;
}

/**
 * Makes the attempts whose time has come: retries, first attempts put off for a busy endpoint,
 * and re-driven deliveries. The waits live in PostgreSQL (the work queue of libs/deliveries), not
 * in memory or JetStream, so they survive restarts; engines claim due deliveries for a lease, and
 * a crashed engine's claims lapse and are taken again.
 *
 * FIFO endpoints' queues are served here too (ADR 0045): only a queue's head is claimed, and the
 * engine that concludes a head claims the endpoint's next at once, so that an ordered endpoint
 * is not paced by the interval.
 */
export class RetryScheduler implements OrderedQueues {
  private readonly logger = new Logger('RetryScheduler');
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private lastBacklogSample = 0;
  /** Set by wake(): the next claim comes at once, not after the interval. */
  private woken = false;
  /** FIFO endpoints whose queue this engine is serving now (claiming or sending a head). */
  private readonly servingQueues = new Set<string>();
  /** Queues kicked while served: their head is claimed again before the serving stops. */
  private readonly kickedAgain = new Set<string>();
  private wakeUp: AbortController | undefined;

  constructor(
    private readonly deps: {
      queue: DeliverySchedule;
      directory: Pick<SubscriberLookup, 'endpoint' | 'endpointForTest'>;
      dispatcher: Pick<Dispatcher, 'dispatch'>;
      recorder: RecordStore;
      metrics: Pick<DeliveryMetrics, 'deliveriesRateLimited' | 'dueBacklog' | 'orderedWaiting'>;
      health: RecordingGate;
      /** The endpoints this engine has no free slot for now (ConcurrencyLimits). */
      fullEndpoints: () => readonly string[];
    },
    private readonly options: SchedulerOptions,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /**
   * Claims at once instead of at the end of the interval: the API has just made deliveries due
   * now (a test event, a replay, a re-drive) and announced it (ADR 0029). A wake that comes while
   * a claim is running makes the next one follow without a pause, so none is lost.
   */
  wake(): void {
    this.woken = true;
    this.wakeUp?.abort();
  }

  /**
   * A FIFO endpoint's queue has a delivery due (the intake recorded one): its head is claimed now
   * unless this engine is serving the queue already, which then looks once more before it stops.
   */
  kick(endpointId: string): void {
    if (this.stopping.signal.aborted) {
      return;
    }
    if (this.servingQueues.has(endpointId)) {
      this.kickedAgain.add(endpointId);
      return;
    }
    this.track(this.serveQueue(endpointId, null));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async run(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      this.woken = false;
      let claimedFullBatch = false;
      try {
        claimedFullBatch = await this.tick();
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          this.deps.health.failed(error);
        }
        this.logger.error(`cannot claim due deliveries: ${(error as Error).message}`);
      }
      if (!claimedFullBatch && !this.woken) {
        this.wakeUp = new AbortController();
        const signal = AbortSignal.any([this.stopping.signal, this.wakeUp.signal]);
        await sleep(this.options.intervalMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /** Claims and starts what is due; true when there may be more right away. */
  private async tick(): Promise<boolean> {
    if (!this.deps.health.healthy) {
      // Nothing is claimed while records cannot be written.
      return false;
    }
    await this.sampleBacklog();
    const room = Math.min(this.options.batchSize, this.options.globalMax - this.inFlight.size);
    if (room <= 0) {
      return false;
    }
    // An endpoint with every slot taken (one hanging past the timeout) would have each of its due
    // deliveries claimed and put off again every interval, a round trip each, on the connections
    // the healthy endpoints' deliveries need (issue 35): they stay due until a slot frees.
    const claimed = await this.deps.queue.claimDue(
      room,
      this.options.leaseMs,
      this.deps.fullEndpoints(),
    );
    for (const { delivery, payload } of claimed) {
      this.track(this.attempt(delivery, payload));
    }
    const heads =
      claimed.length < room
        ? await this.deps.queue.claimOrderedHeads(room - claimed.length, this.options.leaseMs)
        : [];
    for (const head of heads) {
      this.track(this.serveQueue(head.delivery.endpointId, head));
    }
    return claimed.length + heads.length === room;
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => {
      this.logger.error(
        `an attempt failed to run; its claim will lapse: ${(error as Error).message}`,
      );
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  /**
   * Sends a FIFO endpoint's queue, one head at a time, from `head` (already claimed) or from a
   * claim of its head, until the head is not free and due: sent by another engine, waiting for
   * a retry, or not recorded yet.
   */
  private async serveQueue(
    endpointId: string,
    head: { delivery: DeliveryRecord; payload: InboundEvent | undefined } | null,
  ): Promise<void> {
    this.servingQueues.add(endpointId);
    try {
      let next = head;
      while (!this.stopping.signal.aborted) {
        if (!next) {
          this.kickedAgain.delete(endpointId);
          [next = null] = await this.deps.queue.claimOrderedHeads(
            1,
            this.options.leaseMs,
            endpointId,
          );
        }
        if (next) {
          await this.attempt(next.delivery, next.payload);
          next = null;
        } else if (!this.kickedAgain.has(endpointId)) {
          return;
        }
      }
    } finally {
      this.servingQueues.delete(endpointId);
    }
  }

  private async attempt(
    delivery: DeliveryRecord,
    inbound: InboundEvent | undefined,
  ): Promise<void> {
    const { directory, recorder, dispatcher } = this.deps;
    if (delivery.status !== 'pending') {
      await this.deps.queue.forget(delivery.id);
      return;
    }
    // A test event goes to the endpoint asked for, whatever its environment and status (ADR 0029).
    const test = isTestDelivery(delivery);
    const endpoint = test
      ? await directory.endpointForTest(delivery.tenantId, delivery.endpointId)
      : await directory.endpoint(delivery.tenantId, delivery.endpointId);
    const disabled = !test && endpoint?.status === 'disabled';
    if (!endpoint || !inbound || disabled) {
      const unsendable = {
        endpointFound: endpoint !== null,
        endpointDisabled: disabled,
        payloadFound: inbound !== undefined,
      };
      for (const event of decideCancelled(unsendable, delivery, new Date())) {
        await recorder.record({
          deliveryId: delivery.id,
          before: delivery,
          event,
          metadata: { tenant_id: delivery.tenantId },
        });
      }
      return;
    }
    const dispatched = await dispatcher.dispatch(
      {
        identity: {
          delivery_id: delivery.id,
          event_id: delivery.eventId,
          endpoint_id: delivery.endpointId,
          tenant_id: delivery.tenantId,
          event_type: delivery.eventType,
          sequence: delivery.sequence ?? undefined,
        },
        before: delivery,
        endpoint,
        body: inbound.body,
        parent: contextFromCarrier(inbound.traceContext),
      },
      { slotWaitMs: 0 },
    );
    if (dispatched.kind === 'attempted') {
      return;
    }
    // Busy or rate-limited: put off to the second that can take it (ADR 0028); no attempt is used.
    const rateLimited = dispatched.kind === 'rate-limited';
    await this.deps.queue.postpone(
      delivery.id,
      rateLimited ? dispatched.retryInMs : this.options.busyEndpointDelayMs,
    );
    if (rateLimited) {
      this.deps.metrics.deliveriesRateLimited.inc();
    }
  }

  private async sampleBacklog(): Promise<void> {
    if (Date.now() - this.lastBacklogSample < this.options.backlogSampleMs) {
      return;
    }
    this.lastBacklogSample = Date.now();
    // The same endpoints as the claim leaves out: a customer's hanging endpoint is no backlog of
    // the engines', and must not page the operator (svc_delivery_due_backlog's alert).
    this.deps.metrics.dueBacklog.set(await this.deps.queue.dueBacklog(this.deps.fullEndpoints()));
    this.deps.metrics.orderedWaiting.set(await this.deps.queue.orderedWaiting());
  }
}
