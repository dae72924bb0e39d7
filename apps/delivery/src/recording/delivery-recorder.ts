import { Logger } from '@nestjs/common';
import {
  DELIVERY_EVENT_TYPES,
  decideRacedAttempt,
  DeliveryState,
  isTestDelivery,
} from '@svc/deliveries';
import type { DeliveryMetrics } from '../delivery-metrics';
import type { DeliveryCommit } from './delivery-commit';
import type { StatusTransition } from './endpoint-status-recorder';
import type { RecordWriter } from './record-writer';
import { isDatabaseUnavailable, RecordingHealth } from './recording-health';

export type { DeliveryCommit } from './delivery-commit';

export type RecordReceipt =
  | { committed: true; state: DeliveryState }
  /** Another writer got there first (a racing engine); this record was dropped. */
  | { committed: false };

interface Pending {
  commit: DeliveryCommit;
  resolve: (receipt: RecordReceipt) => void;
  reject: (error: unknown) => void;
  /** How often this record lost a race and was re-addressed to the delivery that won. */
  races?: number;
}

/** Batching, races and outage handling of the recorder: ENGINE_TUNING.recorder says why each. */
export interface RecorderOptions {
  maxBatch: number;
  lingerMs: number;
  maxConcurrentCommits: number;
  maxRaces: number;
  retryHeldMs: number;
  drainGiveUpMs: number;
}

/**
 * Group commit of delivery records: records arriving together are appended to the log, folded
 * into the projections, scheduled and turned into endpoint status changes at once: in one
 * statement (group-commit-statement.ts), or, when an endpoint's status changes, in one
 * transaction.
 * A caller's promise resolves once its record is durable. When a batch meets a concurrency
 * conflict, its records are retried one by one so that only the conflicting ones are dropped.
 */
export class DeliveryRecorder {
  private readonly logger = new Logger('DeliveryRecorder');
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private commitsInFlight = 0;
  private readonly idle: (() => void)[] = [];

  private readonly statusListeners: ((transition: StatusTransition) => void)[] = [];

  constructor(
    private readonly writer: RecordWriter,
    private readonly metrics: Pick<
      DeliveryMetrics,
      | 'commitBatchSize'
      | 'commitDuration'
      | 'commitFailures'
      | 'concurrentAttempts'
      | 'endpointTransitions'
      | 'recordsHeld'
    >,
    private readonly options: RecorderOptions,
    private readonly health: Pick<RecordingHealth, 'healthy' | 'failed' | 'succeeded'>,
  ) {}

  /**
   * Called after the commit of each endpoint status change the records made: every engine's
   * directory must learn at once that an endpoint is disabled (ADR 0027).
   */
  onEndpointStatusChanged(listener: (transition: StatusTransition) => void): void {
    this.statusListeners.push(listener);
  }

  record(commit: DeliveryCommit): Promise<RecordReceipt> {
    return new Promise((resolve, reject) => {
      this.queue.push({ commit, resolve, reject });
      this.schedule(commit.urgent === true);
    });
  }

  /**
   * Resolves when every record handed in so far is committed (for shutdown). Records the
   * database still refuses after a while are given up: their callers' messages go back to
   * JetStream and their claims lapse, so the work is done again (at least once).
   */
  async drain(): Promise<void> {
    const giveUpAt = Date.now() + this.options.drainGiveUpMs;
    while (this.queue.length > 0 || this.commitsInFlight > 0) {
      if (Date.now() > giveUpAt && !this.health.healthy) {
        const given = this.queue.splice(0);
        this.metrics.recordsHeld.set(0);
        this.logger.error(`gave up ${given.length} records: the database stayed away`);
        given.forEach((pending) => pending.reject(new Error('the database stayed away')));
        if (this.commitsInFlight === 0) {
          return;
        }
      }
      this.flushSoon(0);
      await new Promise<void>((resolve) => {
        this.idle.push(resolve);
        setTimeout(resolve, this.options.retryHeldMs).unref();
      });
    }
  }

  private schedule(urgent = false): void {
    if (!this.health.healthy) {
      // Held records wait for the database; one attempt per interval, not a busy loop.
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.options.retryHeldMs);
      return;
    }
    if (this.queue.length >= this.options.maxBatch || urgent) {
      this.flushSoon(0);
    } else if (!this.timer) {
      this.flushSoon(this.options.lingerMs);
    }
  }

  private flushSoon(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, delayMs);
  }

  private flush(): void {
    while (this.queue.length > 0 && this.commitsInFlight < this.options.maxConcurrentCommits) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.commitsInFlight += 1;
      void this.commitBatch(batch).finally(() => {
        this.commitsInFlight -= 1;
        if (this.queue.length > 0) {
          this.schedule();
        } else if (this.commitsInFlight === 0) {
          this.idle.splice(0).forEach((wake) => wake());
        }
      });
    }
  }

  private async commitBatch(batch: Pending[]): Promise<void> {
    const started = performance.now();
    try {
      const commits = batch.map((p) => p.commit);
      const { states, transitions } = await this.writer.write(commits);
      const receipts = receiptsOf(commits, states);
      this.metrics.commitBatchSize.observe(batch.length);
      for (const transition of transitions) {
        this.metrics.endpointTransitions.inc({ to: transition.to });
        this.logger.log(`endpoint ${transition.endpointId} is now ${transition.to}`);
        this.statusListeners.forEach((listener) => listener(transition));
      }
      this.metrics.commitDuration.observe((performance.now() - started) / 1000);
      this.health.succeeded();
      this.metrics.recordsHeld.set(this.queue.length);
      batch.forEach((pending, index) => pending.resolve(receipts[index]));
    } catch (error) {
      const conflict = this.writer.isConflict(error);
      if (!conflict && !isDatabaseUnavailable(error)) {
        this.logger.error(
          `cannot record ${batch.length} delivery records: ${(error as Error).message}`,
        );
        batch.forEach((pending) => pending.reject(error));
        return;
      }
      if (!conflict) {
        // The records stand for requests already answered: they are kept and written again
        // once the database is back, never dropped, and the engine takes no new work meanwhile.
        this.metrics.commitFailures.inc();
        this.health.failed(error);
        this.queue.unshift(...batch);
        this.metrics.recordsHeld.set(this.queue.length);
        return;
      }
      if (batch.length === 1) {
        await this.resolveRace(batch[0]);
        return;
      }
      for (const pending of batch) {
        await this.commitBatch([pending]);
      }
    }
  }

  /**
   * A record lost a race: another writer appended to the delivery first, or made the delivery of
   * this (tenant, event, endpoint) first. A record that sent nothing (a deferral) is dropped, as
   * the winner does its work. An attempt was seen by the receiver, so it is never dropped: it is
   * recorded in the delivery that won, as a concurrent attempt.
   */
  private async resolveRace(pending: Pending): Promise<void> {
    const { commit } = pending;
    if (commit.event.type !== DELIVERY_EVENT_TYPES.attempted) {
      pending.resolve({ committed: false });
      return;
    }
    const attempt = commit.event.data;
    const races = (pending.races ?? 0) + 1;
    const winner =
      races > this.options.maxRaces
        ? null
        : await this.writer.winner(commit.deliveryId, {
            tenantId: attempt.tenant_id,
            eventId: attempt.event_id,
            endpointId: attempt.endpoint_id,
          });
    if (!winner) {
      this.logger.error(
        `an attempt of ${attempt.delivery_id} (event ${attempt.event_id}) could not be recorded after ${races} conflicts`,
      );
      pending.resolve({ committed: false });
      return;
    }
    this.metrics.concurrentAttempts.inc();
    const raced: DeliveryCommit = {
      deliveryId: winner.id,
      before: winner,
      event: decideRacedAttempt({ attempt }, winner),
      metadata: commit.metadata,
      payload: commit.payload,
      // A test event's attempt says nothing about its endpoint (ADR 0029).
      conclusion:
        attempt.succeeded && !isTestDelivery(attempt)
          ? { endpointId: attempt.endpoint_id, deliveryId: winner.id, conclusion: 'succeeded' }
          : undefined,
    };
    await this.commitBatch([{ ...pending, commit: raced, races }]);
  }
}

function receiptsOf(
  commits: DeliveryCommit[],
  states: ReadonlyMap<string, DeliveryState>,
): RecordReceipt[] {
  return commits.map((c) => ({ committed: true, state: states.get(c.deliveryId)! }));
}
