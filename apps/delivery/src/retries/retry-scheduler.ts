import { Logger } from '@nestjs/common';
import { decideCancelled, DeliveryRecord, InboundEvent, isTestDelivery } from '@svc/deliveries';
import { contextFromCarrier } from '@svc/observability';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryMetrics } from '../delivery-metrics';
import type { Dispatcher } from '../dispatch/dispatcher';
import type { DeliverySchedule, RecordingGate, RecordStore, SubscriberLookup } from '../ports';
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
 */
export class RetryScheduler {
  private readonly logger = new Logger('RetryScheduler');
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private lastBacklogSample = 0;
  /** Set by wake(): the next claim comes at once, not after the interval. */
  private woken = false;
  private wakeUp: AbortController | undefined;

  constructor(
    private readonly deps: {
      queue: DeliverySchedule;
      directory: Pick<SubscriberLookup, 'endpoint' | 'endpointForTest'>;
      dispatcher: Pick<Dispatcher, 'dispatch'>;
      recorder: RecordStore;
      metrics: Pick<DeliveryMetrics, 'deliveriesRateLimited' | 'dueBacklog'>;
      health: RecordingGate;
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
    const claimed = await this.deps.queue.claimDue(room, this.options.leaseMs);
    for (const { delivery, payload } of claimed) {
      const work = this.attempt(delivery, payload).catch((error: unknown) => {
        this.logger.error(
          `attempt of ${delivery.id} failed to run; its claim will lapse: ${(error as Error).message}`,
        );
      });
      this.inFlight.add(work);
      void work.finally(() => this.inFlight.delete(work));
    }
    return claimed.length === room;
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
    this.deps.metrics.dueBacklog.set(await this.deps.queue.dueBacklog());
  }
}
