import { Logger } from '@nestjs/common';
import type { FairnessSettings } from '@svc/config';
import type { DeliveryMetrics } from '../../delivery-metrics';
import type { Clock } from '../../ports';
import { LaneIntakes } from './lane-intakes';
import { LaneLifecycle } from './lane-lifecycle';
import { LanePlanner } from './lane-planner';
import type {
  LaneConsumers,
  LaneIntakeMaker,
  LaneNotices,
  LaneStore,
  MainIntakeGauges,
} from './lane-ports';
import type { HotTenantSettings, Lane } from './lane-rules';
import type { LaneView } from './lane-view';

/** The lane manager's trade-offs (engine-tuning.ts says why each has its value). */
export interface LaneTuning {
  planIntervalMs: number;
  minRecentMessages: number;
  backlogReadIntervalMs: number;
  minSaturation: number;
  minBacklog: number;
  otherTenantWithinMs: number;
  checkIntervalMs: number;
  maxViewAgeMs: number;
  mainLagLimitMs: number;
  quietMs: number;
  closingGraceMs: number;
  putBackMs: number;
  mainPutBackMs: number;
  sweepIntervalMs: number;
}

export interface LaneManagerDeps {
  store: LaneStore;
  consumers: LaneConsumers;
  notices: LaneNotices;
  /** Makes a lane's intake once its consumer exists (the engine's wiring says how). */
  makeIntake: LaneIntakeMaker;
  view: LaneView;
  metrics: Pick<DeliveryMetrics, 'laneChanges' | 'lanePending' | 'lanesOpen'>;
  fairness: Pick<FairnessSettings, 'maxLanes' | 'hotTenantShare' | 'tenantWeights'>;
  /** DELIVERY_MAX_CONCURRENCY: the lanes hold their share of it. */
  maxConcurrency: number;
  clock: Clock;
}

/**
 * Hot-tenant lanes (ADR 0032), in one engine, on one timer. Every `planIntervalMs` the planner
 * looks at the main intake and the lifecycle opens a lane for a tenant that crowds it (a row in
 * `intake_lanes`, a JetStream consumer filtered on the tenant's subjects), so that the main
 * intake acknowledges the tenant's backlog unhandled and reaches the other tenants' events, while
 * the lane's own intake delivers the backlog with its part of the engine's concurrency. Every
 * `checkIntervalMs` it reads the registry (also at once on a notice from another engine), runs an
 * intake for every lane, closes the lanes without a backlog for a while and deletes the closed
 * ones after a grace period. No timer and no consumer per tenant, at most INTAKE_LANES_MAX lanes.
 */
export class LaneManager {
  private readonly logger = new Logger('LaneManager');
  private readonly planner: LanePlanner;
  private readonly lifecycle: LaneLifecycle;
  private readonly intakes: LaneIntakes;
  private viewUpdates: Promise<unknown> = Promise.resolve();
  private intakeUpdates: Promise<unknown> = Promise.resolve();
  private main: MainIntakeGauges | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopFollowing: (() => void) | undefined;
  private ticking = false;
  private stopping = false;
  private lastCheckMs = -Infinity;
  private lastSweepMs = -Infinity;

  constructor(
    private readonly deps: LaneManagerDeps,
    private readonly tuning: LaneTuning,
  ) {
    const hot: HotTenantSettings = {
      maxLanes: deps.fairness.maxLanes,
      hotTenantShare: deps.fairness.hotTenantShare,
      minRecentMessages: tuning.minRecentMessages,
      minSaturation: tuning.minSaturation,
      minBacklog: tuning.minBacklog,
      otherTenantWithinMs: tuning.otherTenantWithinMs,
    };
    this.planner = new LanePlanner(hot, tuning.backlogReadIntervalMs, deps.clock);
    this.lifecycle = new LaneLifecycle(
      { ...deps, reload: () => this.reload(), learn: (lane) => this.learn(lane) },
      {
        maxLanes: deps.fairness.maxLanes,
        quietMs: tuning.quietMs,
        closingGraceMs: tuning.closingGraceMs,
      },
    );
    this.intakes = new LaneIntakes(deps.makeIntake, deps.fairness, deps.maxConcurrency);
  }

  /** Reads the registry, runs an intake for every lane, and starts watching the main intake. */
  async start(main: MainIntakeGauges): Promise<void> {
    this.main = main;
    this.planner.begin(main);
    this.stopFollowing = this.deps.notices.follow(() => {
      if (!this.stopping) {
        void this.reload().catch((failure: unknown) => this.warn('reload the lanes', failure));
      }
    });
    await this.reload().catch((failure: unknown) => this.warn('read the lanes', failure));
    this.timer = setInterval(() => void this.tick(), this.tuning.planIntervalMs);
  }

  /** Stops planning and every lane's intake (their unhandled messages go back to JetStream). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.stopFollowing?.();
    await this.viewUpdates.catch(() => undefined);
    await this.intakeUpdates.catch(() => undefined);
    await this.intakes.stop();
  }

  /** Reads the registry, then brings the lane intakes in line with it. */
  async reload(): Promise<void> {
    await this.enqueue(async () => {
      const readAt = this.deps.clock.now();
      const lanes = await this.deps.store.list();
      const { learned, reopened } = this.deps.view.replace(lanes, readAt);
      // A lane open again is quiet from now on, not from before it closed.
      reopened.forEach((tenantId) => this.lifecycle.forget(tenantId));
      this.deps.metrics.lanesOpen.set(lanes.length);
      if (learned) {
        this.main?.passOverCovered();
      }
    });
    // Apart from the view's updates: starting an intake takes requests to JetStream, and an
    // opening waits for the view.
    const next = this.intakeUpdates.then(async () => {
      if (this.main && !this.stopping) {
        const gone = await this.intakes.follow(this.deps.view.all());
        gone.forEach((tenantId) => this.lifecycle.forget(tenantId));
      }
    });
    this.intakeUpdates = next.catch(() => undefined);
    await next;
  }

  private async tick(): Promise<void> {
    const main = this.main;
    if (this.ticking || this.stopping || !main) {
      return;
    }
    this.ticking = true;
    try {
      const decision = await this.planner.plan(
        main,
        this.deps.view.all(),
        async () => (await this.deps.consumers.mainConsumer()).pending,
      );
      await this.lifecycle.act(decision);
      const now = this.deps.clock.now();
      if (now - this.lastCheckMs >= this.tuning.checkIntervalMs) {
        this.lastCheckMs = now;
        await this.reload();
        await this.lifecycle.checkLanes();
      }
      if (now - this.lastSweepMs >= this.tuning.sweepIntervalMs) {
        this.lastSweepMs = now;
        await this.lifecycle.sweepOrphans();
      }
    } catch (error) {
      this.warn('look after the lanes', error);
    } finally {
      this.ticking = false;
    }
  }

  /** Adds a lane this engine just opened or found to its view, in order with reloads. */
  private learn(lane: Lane): Promise<void> {
    return this.enqueue(() => {
      this.deps.view.learn(lane);
      this.main?.passOverCovered();
      return Promise.resolve();
    });
  }

  private enqueue(update: () => Promise<void>): Promise<void> {
    const next = this.viewUpdates.then(update, update);
    this.viewUpdates = next.catch(() => undefined);
    return next;
  }

  private warn(what: string, error: unknown): void {
    if (!this.stopping) {
      this.logger.warn(`could not ${what}: ${(error as Error).message}`);
    }
  }
}
