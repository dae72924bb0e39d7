import { Logger } from '@nestjs/common';
import {
  type ConsumerInfo,
  type JetStreamClient,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  jetstreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import type { AppConfig, FairnessSettings } from '@svc/config';
import { SubjectScheme } from '@svc/contracts';
import { desiredLaneConsumer, laneConsumerPrefix } from '@svc/messaging';
import { DeliveryMetrics } from '../../delivery-metrics';
import { EventIntake, EventIntakeFactory, PulledMessage } from '../event-intake';
import { LaneRegistry } from './lane-registry';
import {
  caughtUpSince,
  decideLane,
  HotTenantSettings,
  hotTenantOf,
  Lane,
  laneDeliveryBudget,
  LaneProgress,
  lanePutsBack,
  mainIntakeSkips,
  mainPullsPast,
  mainPutsBack,
  mayDeleteLane,
  shouldCloseLane,
} from './lane-rules';

type JetStreamSettings = AppConfig['jetstream'];

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
  registry: LaneRegistry;
  intakes: EventIntakeFactory;
  metrics: DeliveryMetrics;
  subjects: SubjectScheme;
  jetstream: JetStreamSettings;
  fairness: FairnessSettings;
  /** DELIVERY_MAX_CONCURRENCY: the lanes hold their share of it. */
  maxConcurrency: number;
}

/** The core NATS subject of lane-change notices, under the deployment's root. */
export function laneChangedSubject(subjects: SubjectScheme): string {
  return `${subjects.root}.control.intake-lanes.changed`;
}

interface RunningLane {
  consumerName: string;
  intake: EventIntake;
}

/**
 * Hot-tenant lanes (ADR 0032), in one engine. Every `planIntervalMs` it looks at the main intake:
 * when it is saturated by one tenant and the main consumer has a backlog, it opens a lane for that
 * tenant (a row in `intake_lanes`, a JetStream consumer filtered on the tenant's subjects from the
 * main consumer's next undelivered sequence), so that the main intake acknowledges the tenant's
 * backlog unhandled, quickly, and reaches the other tenants' events, while the lane's own intake
 * delivers the backlog with its part of the engine's concurrency. Every `checkIntervalMs` it reads
 * the registry (also at once on a notice from another engine) and runs an intake for every lane,
 * closes the lanes without a backlog for a while, and deletes the closed ones after a grace
 * period. One timer for all of it: no timer and no consumer per tenant, and at most
 * INTAKE_LANES_MAX lanes.
 */
export class LaneManager {
  private readonly logger = new Logger('LaneManager');
  private lanes = new Map<string, Lane>();
  /** When the registry read that the view comes from began (-Infinity: never read). */
  private viewReadAt = -Infinity;
  private viewUpdates: Promise<unknown> = Promise.resolve();
  private intakeUpdates: Promise<unknown> = Promise.resolve();
  private readonly running = new Map<string, RunningLane>();
  /** Lane intakes stopping (their messages in hand finishing): awaited at shutdown only. */
  private readonly stoppingIntakes = new Set<Promise<void>>();
  private readonly caughtUp = new Map<string, number | null>();
  /** Tenants this engine is opening a lane for right now (see mainPutsBackMs). */
  private readonly opening = new Set<string>();
  private context:
    | { connection: NatsConnection; js: JetStreamClient; jsm: JetStreamManager; main: EventIntake }
    | undefined;
  private timer: NodeJS.Timeout | undefined;
  private notices: Subscription | undefined;
  private ticking = false;
  private stopping = false;
  private lastPlan = { atMs: 0, waitedMs: 0 };
  private lastBacklogReadMs = -Infinity;
  private lastCheckMs = -Infinity;
  private lastSweepMs = -Infinity;
  private readonly hotSettings: HotTenantSettings;

  constructor(
    private readonly deps: LaneManagerDeps,
    private readonly tuning: LaneTuning,
  ) {
    this.hotSettings = {
      maxLanes: deps.fairness.maxLanes,
      hotTenantShare: deps.fairness.hotTenantShare,
      minRecentMessages: tuning.minRecentMessages,
      minSaturation: tuning.minSaturation,
      minBacklog: tuning.minBacklog,
      otherTenantWithinMs: tuning.otherTenantWithinMs,
    };
  }

  /** What the lanes may hold of the engine's global concurrency together (ConcurrencyLimits). */
  static laneSlotsOf(maxConcurrency: number, fairness: FairnessSettings): number {
    return Math.max(1, Math.round(maxConcurrency * fairness.laneConcurrencyShare));
  }

  /**
   * The main intake's question for every message: is it covered by a lane this engine knows of
   * (then the main intake acknowledges it unhandled)? Only with a recent view (lane-rules.ts).
   */
  readonly coveredByLane = (tenantId: string, streamSeq: number): boolean =>
    mainIntakeSkips(
      this.lanes.get(tenantId),
      streamSeq,
      Date.now() - this.viewReadAt,
      this.tuning.maxViewAgeMs,
    );

  /** The main intake: does a pulled message not hold up the next pull (lane-rules.ts)? */
  readonly pullsPast = (tenantId: string, streamSeq: number): boolean =>
    mainPullsPast(
      this.lanes.get(tenantId),
      streamSeq,
      Date.now() - this.viewReadAt,
      this.tuning.maxViewAgeMs,
    );

  /**
   * The main intake's other question: put a laned tenant's message from before its lane back for
   * a moment, as the tenant already holds its share of the intake (lane-rules.ts)?
   */
  readonly mainPutsBackMs = (message: PulledMessage): number | null =>
    message.tenantId !== null &&
    mainPutsBack(
      {
        lane: this.lanes.get(message.tenantId),
        opening: this.opening.has(message.tenantId),
        streamSeq: message.streamSeq,
        tenantDeliveriesInHand: message.tenantDeliveriesInHand,
      },
      this.deps.maxConcurrency,
      this.deps.fairness.hotTenantShare,
    )
      ? this.tuning.mainPutBackMs
      : null;

  /** Reads the registry, runs an intake for every lane, and starts watching the main intake. */
  async start(connection: NatsConnection, js: JetStreamClient, main: EventIntake): Promise<void> {
    this.context = { connection, js, jsm: await jetstreamManager(connection), main };
    this.lastPlan = { atMs: Date.now(), waitedMs: main.waitedMs };
    this.notices = connection.subscribe(laneChangedSubject(this.deps.subjects), {
      callback: (error) => {
        if (!error) {
          void this.reload().catch((failure: unknown) => this.warn('reload the lanes', failure));
        }
      },
    });
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === 'reconnect' && !this.stopping) {
          // Notices sent while disconnected are lost.
          void this.reload().catch((failure: unknown) => this.warn('reload the lanes', failure));
        }
      }
    })();
    await this.reload().catch((failure: unknown) => this.warn('read the lanes', failure));
    this.timer = setInterval(() => void this.tick(), this.tuning.planIntervalMs);
  }

  /** Stops planning and every lane's intake (their unhandled messages go back to JetStream). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.notices?.unsubscribe();
    await this.viewUpdates.catch(() => undefined);
    await this.intakeUpdates.catch(() => undefined);
    await Promise.allSettled([
      ...[...this.running.values()].map((lane) => lane.intake.stop()),
      ...this.stoppingIntakes,
    ]);
    this.running.clear();
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopping || !this.context) {
      return;
    }
    this.ticking = true;
    try {
      await this.plan(this.context.main, this.context.jsm);
      const now = Date.now();
      if (now - this.lastCheckMs >= this.tuning.checkIntervalMs) {
        this.lastCheckMs = now;
        await this.reload();
        await this.checkLanes(this.context.jsm);
      }
      if (now - this.lastSweepMs >= this.tuning.sweepIntervalMs) {
        this.lastSweepMs = now;
        await this.sweepOrphans(this.context.jsm);
      }
    } catch (error) {
      this.warn('look after the lanes', error);
    } finally {
      this.ticking = false;
    }
  }

  /** Opens (or keeps open) a lane for a tenant that crowds the main intake. */
  private async plan(main: EventIntake, jsm: JetStreamManager): Promise<void> {
    const now = Date.now();
    const waitedMs = main.waitedMs;
    const saturation =
      now > this.lastPlan.atMs
        ? (waitedMs - this.lastPlan.waitedMs) / (now - this.lastPlan.atMs)
        : 0;
    this.lastPlan = { atMs: now, waitedMs };
    const busiestTenant = main.recent.busiest();
    const hot = hotTenantOf(
      {
        saturation,
        recentMessages: main.recent.size,
        busiestTenant,
        otherTenantAgoMs: busiestTenant
          ? main.recent.otherTenantAgoMs(busiestTenant.tenantId)
          : null,
      },
      this.hotSettings,
    );
    if (hot === null || now - this.lastBacklogReadMs < this.tuning.backlogReadIntervalMs) {
      return;
    }
    this.lastBacklogReadMs = now;
    const { eventsStream, consumer } = this.deps.jetstream;
    const info = await jsm.consumers.info(eventsStream, consumer);
    // What the others wait behind: the messages not yet delivered, and those the main intake
    // holds, in hand or pulled (a burst fills it before anything is pending).
    const backlog = info.num_pending + main.messagesHeld;
    const decision = decideLane(hot, this.lanes, backlog, this.hotSettings);
    switch (decision.action) {
      case 'open':
        await this.open(decision.tenantId, jsm);
        break;
      case 'reopen':
        if (await this.deps.registry.reopen(decision.tenantId)) {
          this.deps.metrics.laneChanges.inc({ change: 'reopened' });
          this.logger.log(`lane of ${decision.tenantId} stays open: the tenant is hot again`);
          this.announce(decision.tenantId);
        }
        await this.reload();
        break;
      case 'refuse':
        this.deps.metrics.laneChanges.inc({ change: 'refused' });
        break;
      case 'none':
        break;
    }
  }

  /**
   * The lane starts after the main consumer's last delivered message, and this engine knows of it
   * before it takes any more of the tenant's messages, so none is handled twice here (another
   * engine may handle the few it takes before the notice reaches it: a duplicate, never a loss).
   */
  private async open(tenantId: string, jsm: JetStreamManager): Promise<void> {
    // From here until this engine knows the lane, the main intake puts the tenant's messages
    // back rather than take one the lane will cover; every other tenant's go on.
    this.opening.add(tenantId);
    let opened: Lane | undefined;
    try {
      const { eventsStream, consumer } = this.deps.jetstream;
      const info = await jsm.consumers.info(eventsStream, consumer);
      const startSeq = info.delivered.stream_seq + 1;
      const desired = desiredLaneConsumer(this.deps.jetstream, tenantId, startSeq);
      const result = await this.deps.registry.open(
        { tenantId, consumerName: desired.durable_name, startSeq },
        this.deps.fairness.maxLanes,
      );
      if (result === null) {
        this.deps.metrics.laneChanges.inc({ change: 'refused' });
        return;
      }
      if (result.opened) {
        opened = result.lane;
        this.deps.metrics.laneChanges.inc({ change: 'opened' });
        this.logger.log(
          `lane opened for ${tenantId} from stream sequence ${startSeq} (${info.num_pending} messages pending for the main consumer)`,
        );
      }
      await this.learn(result.lane);
    } finally {
      this.opening.delete(tenantId);
    }
    if (opened) {
      this.announce(tenantId);
      await this.reload();
    }
  }

  /** Adds a lane this engine just opened or found to its view, in order with reloads. */
  private learn(lane: Lane): Promise<void> {
    return this.enqueue(() => {
      this.lanes = new Map(this.lanes).set(lane.tenantId, lane);
      this.context?.main.passOverCovered();
      return Promise.resolve();
    });
  }

  /** Reads the registry, then brings the lane intakes in line with it. */
  async reload(): Promise<void> {
    await this.enqueue(async () => {
      const readAt = Date.now();
      const lanes = await this.deps.registry.list();
      const learned = lanes.some((lane) => !this.lanes.has(lane.tenantId));
      this.lanes = new Map(lanes.map((lane) => [lane.tenantId, lane]));
      this.viewReadAt = readAt;
      this.deps.metrics.lanesOpen.set(lanes.length);
      if (learned) {
        this.context?.main.passOverCovered();
      }
    });
    // Apart from the view's updates: starting an intake takes requests to JetStream, and an
    // opening waits for the view.
    const next = this.intakeUpdates.then(() => this.runLaneIntakes());
    this.intakeUpdates = next.catch(() => undefined);
    await next;
  }

  private enqueue(update: () => Promise<void>): Promise<void> {
    const next = this.viewUpdates.then(update, update);
    this.viewUpdates = next.catch(() => undefined);
    return next;
  }

  private async runLaneIntakes(): Promise<void> {
    if (!this.context || this.stopping) {
      return;
    }
    for (const [tenantId, running] of [...this.running]) {
      const lane = this.lanes.get(tenantId);
      if (lane?.consumerName !== running.consumerName) {
        this.running.delete(tenantId);
        this.caughtUp.delete(tenantId);
        // Its messages in hand finish in their time (up to an attempt's timeout) meanwhile.
        const stopped = running.intake.stop().finally(() => this.stoppingIntakes.delete(stopped));
        this.stoppingIntakes.add(stopped);
      }
    }
    const weights = [...this.lanes.keys()].map((tenantId) => this.weightOf(tenantId));
    for (const lane of this.lanes.values()) {
      const budget = laneDeliveryBudget(
        this.deps.maxConcurrency,
        this.weightOf(lane.tenantId),
        weights,
      );
      const running = this.running.get(lane.tenantId);
      if (running) {
        running.intake.boundDeliveries(budget);
        continue;
      }
      const intake = await this.laneIntake(lane, budget).catch((error: unknown) => {
        this.warn(`start the lane of ${lane.tenantId}`, error);
        return undefined;
      });
      if (intake && !this.stopping) {
        this.running.set(lane.tenantId, { consumerName: lane.consumerName, intake });
        await intake.start();
      }
    }
  }

  private async laneIntake(lane: Lane, budget: number): Promise<EventIntake> {
    const { js, jsm, main } = this.context!;
    await this.ensureConsumer(lane, jsm);
    const consumer = await js.consumers.get(this.deps.jetstream.eventsStream, lane.consumerName);
    return this.deps.intakes.create(consumer, js, {
      kind: 'lane',
      maxDeliveriesInFlight: budget,
      yieldWhile: () => main.lagMs() > this.tuning.mainLagLimitMs,
      putBackMs: ({ streamSeq, deliveryCount }) =>
        lanePutsBack(this.lanes.get(lane.tenantId), streamSeq, deliveryCount)
          ? this.tuning.putBackMs
          : null,
    });
  }

  /**
   * Creates the lane's consumer if it is missing: the engine that opened the lane creates it
   * right after the row, and any engine that finds the row without it (the opener stopped in
   * between) creates it from the row, which names it and where it starts.
   */
  private async ensureConsumer(lane: Lane, jsm: JetStreamManager): Promise<void> {
    const { eventsStream } = this.deps.jetstream;
    if (await this.laneInfo(lane, jsm)) {
      return;
    }
    await jsm.consumers.add(eventsStream, {
      ...desiredLaneConsumer(this.deps.jetstream, lane.tenantId, lane.startSeq),
      durable_name: lane.consumerName,
    });
  }

  private async laneInfo(lane: Lane, jsm: JetStreamManager): Promise<ConsumerInfo | null> {
    try {
      return await jsm.consumers.info(this.deps.jetstream.eventsStream, lane.consumerName);
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) {
        return null;
      }
      throw error;
    }
  }

  /** Closes the lanes without a backlog for a while, deletes the closed ones once they may go. */
  private async checkLanes(jsm: JetStreamManager): Promise<void> {
    let pending = 0;
    for (const lane of this.lanes.values()) {
      const info = await this.laneInfo(lane, jsm);
      if (info === null) {
        // Read from the registry a moment ago: a lane whose consumer went missing.
        await this.ensureConsumer(lane, jsm);
        continue;
      }
      const progress: LaneProgress = {
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
      };
      pending += progress.pending;
      const now = Date.now();
      const since = caughtUpSince(this.caughtUp.get(lane.tenantId) ?? null, progress, now);
      this.caughtUp.set(lane.tenantId, since);
      if (shouldCloseLane(lane, since, now, this.tuning.quietMs)) {
        await this.close(lane, jsm);
      } else if (mayDeleteLane(lane, progress, now, this.tuning.closingGraceMs)) {
        await this.remove(lane, jsm);
      }
    }
    this.deps.metrics.lanePending.set(pending);
  }

  private async close(lane: Lane, jsm: JetStreamManager): Promise<void> {
    const { state } = await jsm.streams.info(this.deps.jetstream.eventsStream);
    if (await this.deps.registry.markClosing(lane.tenantId, state.last_seq)) {
      this.deps.metrics.laneChanges.inc({ change: 'closing' });
      this.logger.log(
        `lane of ${lane.tenantId} closing: it covers up to stream sequence ${state.last_seq}`,
      );
      this.announce(lane.tenantId);
      await this.reload();
    }
  }

  private async remove(lane: Lane, jsm: JetStreamManager): Promise<void> {
    const removed = await this.deps.registry.removeClosed(
      lane.tenantId,
      this.tuning.closingGraceMs,
      async (current) => {
        const info = await this.laneInfo(current, jsm);
        return (
          info === null ||
          mayDeleteLane(
            current,
            { pending: info.num_pending, ackPending: info.num_ack_pending },
            Date.now(),
            this.tuning.closingGraceMs,
          )
        );
      },
    );
    if (!removed) {
      return;
    }
    this.deps.metrics.laneChanges.inc({ change: 'closed' });
    this.logger.log(`lane of ${lane.tenantId} closed`);
    await this.reload();
    this.announce(lane.tenantId);
    await this.deleteConsumer(lane.consumerName, jsm);
  }

  /**
   * Deletes lane consumers without a row (an engine stopped between removing the row and deleting
   * its consumer). The consumers are listed before the rows: a lane is registered before its
   * consumer is created, so a consumer listed first has its row in the list read after.
   */
  private async sweepOrphans(jsm: JetStreamManager): Promise<void> {
    const prefix = laneConsumerPrefix(this.deps.jetstream);
    const names: string[] = [];
    for await (const info of jsm.consumers.list(this.deps.jetstream.eventsStream)) {
      if (info.name.startsWith(prefix)) {
        names.push(info.name);
      }
    }
    if (names.length === 0) {
      return;
    }
    const registered = new Set((await this.deps.registry.list()).map((lane) => lane.consumerName));
    for (const name of names.filter((each) => !registered.has(each))) {
      this.logger.log(`deleting lane consumer ${name}: its lane is closed`);
      await this.deleteConsumer(name, jsm);
    }
  }

  private async deleteConsumer(name: string, jsm: JetStreamManager): Promise<void> {
    await jsm.consumers.delete(this.deps.jetstream.eventsStream, name).catch((error: unknown) => {
      if (!(
        error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound
      )) {
        this.warn(`delete the lane consumer ${name}`, error);
      }
    });
  }

  private weightOf(tenantId: string): number {
    return this.deps.fairness.tenantWeights[tenantId] ?? 1;
  }

  /** Tells the other engines to read the registry now (best effort: they also read it every second). */
  private announce(tenantId: string): void {
    try {
      this.context?.connection.publish(
        laneChangedSubject(this.deps.subjects),
        JSON.stringify({ tenant_id: tenantId }),
      );
    } catch (error) {
      this.warn('announce a lane change', error);
    }
  }

  private warn(what: string, error: unknown): void {
    if (!this.stopping) {
      this.logger.warn(`could not ${what}: ${(error as Error).message}`);
    }
  }
}
