import { Logger } from '@nestjs/common';
import type { DeliveryMetrics } from '../../delivery-metrics';
import type { Clock } from '../../ports';
import type { LaneConsumers, LaneNotices, LaneStore } from './lane-ports';
import {
  caughtUpSince,
  Lane,
  LaneDecision,
  LaneProgress,
  mayDeleteLane,
  shouldCloseLane,
} from './lane-rules';
import type { LaneView } from './lane-view';

export interface LaneLifecycleDeps {
  store: LaneStore;
  consumers: LaneConsumers;
  notices: Pick<LaneNotices, 'announce'>;
  metrics: Pick<DeliveryMetrics, 'laneChanges' | 'lanePending'>;
  view: LaneView;
  clock: Clock;
  /** Reads the registry again and brings the lane intakes in line (lane-manager.ts). */
  reload: () => Promise<void>;
  /** Adds a lane to the view, in order with reloads, and lets the main intake pass over it. */
  learn: (lane: Lane) => Promise<void>;
}

export interface LaneLifecycleSettings {
  /** INTAKE_LANES_MAX. */
  maxLanes: number;
  /** A lane without a backlog this long closes. */
  quietMs: number;
  /** A closing lane's row and consumer go this long after it began closing, once it holds nothing. */
  closingGraceMs: number;
}

/**
 * A lane's life (ADR 0032): opened for a hot tenant (a row, then its consumer, from the main
 * consumer's next undelivered sequence), reopened when its tenant is hot again while it closes,
 * closed once it has had no backlog for a while, deleted after a grace period once it holds
 * nothing; and orphaned consumers (an engine stopped between a row's removal and its consumer's
 * deletion) swept.
 */
export class LaneLifecycle {
  private readonly logger = new Logger('LaneLifecycle');
  /** Since when each lane has had no backlog (null: it has one). */
  private readonly caughtUp = new Map<string, number | null>();

  constructor(
    private readonly deps: LaneLifecycleDeps,
    private readonly settings: LaneLifecycleSettings,
  ) {}

  /** Acts on the planner's decision. */
  async act(decision: LaneDecision): Promise<void> {
    const { metrics, store } = this.deps;
    switch (decision.action) {
      case 'open':
        await this.open(decision.tenantId);
        break;
      case 'reopen':
        if (await store.reopen(decision.tenantId)) {
          metrics.laneChanges.inc({ change: 'reopened' });
          this.logger.log(`lane of ${decision.tenantId} stays open: the tenant is hot again`);
          this.deps.notices.announce(decision.tenantId);
        }
        await this.deps.reload();
        break;
      case 'refuse':
        metrics.laneChanges.inc({ change: 'refused' });
        break;
      case 'none':
        break;
    }
  }

  /** A lane's intake stopped, or the lane was reopened: its quiet time starts over. */
  forget(tenantId: string): void {
    this.caughtUp.delete(tenantId);
  }

  /** Closes the lanes without a backlog for a while, deletes the closed ones once they may go. */
  async checkLanes(): Promise<void> {
    const { consumers, view, clock } = this.deps;
    let pending = 0;
    for (const lane of view.all().values()) {
      const progress = await consumers.progress(lane.consumerName);
      if (progress === null) {
        // Read from the registry a moment ago: a lane whose consumer went missing.
        await consumers.ensure(lane);
        continue;
      }
      pending += progress.pending;
      const now = clock.now();
      const since = caughtUpSince(this.caughtUp.get(lane.tenantId) ?? null, progress, now);
      this.caughtUp.set(lane.tenantId, since);
      if (shouldCloseLane(lane, since, now, this.settings.quietMs)) {
        await this.close(lane);
      } else if (mayDeleteLane(lane, progress, now, this.settings.closingGraceMs)) {
        await this.remove(lane);
      }
    }
    this.deps.metrics.lanePending.set(pending);
  }

  /**
   * Deletes lane consumers without a row. The consumers are listed before the rows: a lane is
   * registered before its consumer is created, so a consumer listed first has its row in the
   * list read after.
   */
  async sweepOrphans(): Promise<void> {
    const names = await this.deps.consumers.laneConsumerNames();
    if (names.length === 0) {
      return;
    }
    const registered = new Set((await this.deps.store.list()).map((lane) => lane.consumerName));
    for (const name of names.filter((each) => !registered.has(each))) {
      this.logger.log(`deleting lane consumer ${name}: its lane is closed`);
      await this.deleteConsumer(name);
    }
  }

  /**
   * The lane starts after the main consumer's last delivered message, and this engine knows of it
   * before it takes any more of the tenant's messages, so none is handled twice here (another
   * engine may handle the few it takes before the notice reaches it: a duplicate, never a loss).
   */
  private async open(tenantId: string): Promise<void> {
    const { consumers, store, metrics } = this.deps;
    // From here until this engine knows the lane, the main intake puts the tenant's messages
    // back rather than take one the lane will cover; every other tenant's go on.
    const doneOpening = this.deps.view.beginOpening(tenantId);
    let opened: Lane | undefined;
    try {
      const main = await consumers.mainConsumer();
      const startSeq = main.deliveredStreamSeq + 1;
      const consumerName = consumers.consumerNameFor(tenantId, startSeq);
      const result = await store.open({ tenantId, consumerName, startSeq }, this.settings.maxLanes);
      if (result === null) {
        metrics.laneChanges.inc({ change: 'refused' });
        return;
      }
      if (result.opened) {
        opened = result.lane;
        metrics.laneChanges.inc({ change: 'opened' });
        this.logger.log(
          `lane opened for ${tenantId} from stream sequence ${startSeq} (${main.pending} messages pending for the main consumer)`,
        );
      }
      await this.deps.learn(result.lane);
    } finally {
      doneOpening();
    }
    if (opened) {
      this.deps.notices.announce(tenantId);
      await this.deps.reload();
    }
  }

  private async close(lane: Lane): Promise<void> {
    const lastSeq = await this.deps.consumers.lastStreamSeq();
    if (await this.deps.store.markClosing(lane.tenantId, lastSeq)) {
      this.deps.metrics.laneChanges.inc({ change: 'closing' });
      this.logger.log(
        `lane of ${lane.tenantId} closing: it covers up to stream sequence ${lastSeq}`,
      );
      this.deps.notices.announce(lane.tenantId);
      await this.deps.reload();
    }
  }

  private async remove(lane: Lane): Promise<void> {
    const { consumers, clock } = this.deps;
    const removed = await this.deps.store.removeClosed(
      lane.tenantId,
      this.settings.closingGraceMs,
      async (current) => {
        const progress: LaneProgress | null = await consumers.progress(current.consumerName);
        return (
          progress === null ||
          mayDeleteLane(current, progress, clock.now(), this.settings.closingGraceMs)
        );
      },
    );
    if (!removed) {
      return;
    }
    this.deps.metrics.laneChanges.inc({ change: 'closed' });
    this.logger.log(`lane of ${lane.tenantId} closed`);
    await this.deps.reload();
    this.deps.notices.announce(lane.tenantId);
    await this.deleteConsumer(lane.consumerName);
  }

  private async deleteConsumer(name: string): Promise<void> {
    await this.deps.consumers.remove(name).catch((error: unknown) => {
      this.logger.warn(`could not delete the lane consumer ${name}: ${(error as Error).message}`);
    });
  }
}
