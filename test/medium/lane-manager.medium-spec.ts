import { Logger } from '@nestjs/common';
import { Registry } from 'prom-client';
import { DeliveryMetrics, type LaneChange } from '../../apps/delivery/src/delivery-metrics';
import { ENGINE_TUNING } from '../../apps/delivery/src/engine-tuning';
import { LaneManager, LaneTuning } from '../../apps/delivery/src/intake/lanes/lane-manager';
import { LaneView } from '../../apps/delivery/src/intake/lanes/lane-view';
import { FakeClock, until } from './fakes/intake-fakes';
import {
  FakeLaneConsumers,
  FakeLaneIntakeMaker,
  FakeLaneNotices,
  FakeLaneStore,
  FakeMainIntake,
} from './fakes/lane-fakes';

/**
 * The lane manager (ADR 0035) end to end over fakes of its ports (test/medium/fakes/lane-fakes.ts):
 * opening a lane for a hot tenant, not opening one, closing and removing it, refusing one,
 * following another engine's notice, sweeping orphaned consumers, stopping. Its timer runs for
 * real every few milliseconds; every time its rules read (saturation, check and sweep intervals,
 * quiet time, grace period) is the fake clock's, which only the test moves.
 */

/** The engine's values; only the real timer is shorter (the others are read on the fake clock). */
const TUNING: LaneTuning = { ...ENGINE_TUNING.lanes, planIntervalMs: 5 };
const MAX_CONCURRENCY = 64;

function lanesWithFakes(
  fairness: { maxLanes?: number; tenantWeights?: Record<string, number> } = {},
) {
  const clock = new FakeClock();
  const consumers = new FakeLaneConsumers();
  const fakes = {
    clock,
    consumers,
    store: new FakeLaneStore(clock),
    notices: new FakeLaneNotices(),
    main: new FakeMainIntake(),
    // As the engine's wiring does: the lane's consumer is ensured before its intake is made.
    intakes: new FakeLaneIntakeMaker((lane) => consumers.ensure(lane)),
    metrics: new DeliveryMetrics(new Registry()),
    view: new LaneView(
      {
        maxViewAgeMs: TUNING.maxViewAgeMs,
        mainPutBackMs: TUNING.mainPutBackMs,
        putBackMs: TUNING.putBackMs,
        maxConcurrency: MAX_CONCURRENCY,
        hotTenantShare: 0.5,
      },
      clock,
    ),
  };
  const manager = new LaneManager(
    {
      store: fakes.store,
      consumers: fakes.consumers,
      notices: fakes.notices,
      makeIntake: fakes.intakes.make,
      view: fakes.view,
      metrics: fakes.metrics,
      fairness: {
        maxLanes: fairness.maxLanes ?? 16,
        hotTenantShare: 0.5,
        tenantWeights: fairness.tenantWeights ?? {},
      },
      maxConcurrency: MAX_CONCURRENCY,
      clock,
    },
    TUNING,
  );
  return { ...fakes, manager };
}

type Lanes = ReturnType<typeof lanesWithFakes>;

let running: Lanes[] = [];

beforeAll(() => Logger.overrideLogger(['warn', 'error']));

async function started(lanes: Lanes = lanesWithFakes()): Promise<Lanes> {
  running.push(lanes);
  await lanes.manager.start(lanes.main);
  return lanes;
}

afterEach(async () => {
  await Promise.all(running.map((lanes) => lanes.manager.stop()));
  running = [];
});

/** The main intake took mostly `tenantId`'s messages lately, another tenant's `otherAgoMs` ago. */
function crowdedBy(lanes: Lanes, tenantId: string, otherAgoMs: number | null = 2000): void {
  lanes.main.recent.size = 64;
  lanes.main.recent.busiestTenant = { tenantId, messages: 48 };
  lanes.main.recent.otherAgoMs = otherAgoMs;
}

/** `ms` pass on the fake clock, the main intake busy with what it holds all along. */
function saturatedFor(lanes: Lanes, ms: number): void {
  lanes.clock.advance(ms);
  lanes.main.waitedMs += ms;
}

/**
 * Resolves once a whole tick of the manager ran after this call: ticks do not overlap, so the
 * tick whose planning reads the recent tenants the second time began after the one running now
 * (or the first one begun after this call) ended.
 */
async function aTickLater(lanes: Lanes): Promise<void> {
  const reads = lanes.main.recent.busiestReads;
  await until(() => lanes.main.recent.busiestReads >= reads + 2);
}

async function laneChanges(lanes: Lanes, change: LaneChange): Promise<number> {
  const { values } = await lanes.metrics.laneChanges.get();
  return values.find((value) => value.labels.change === change)?.value ?? 0;
}

const HOT = 'ten_hot';
const HOT_CONSUMER = 'svc-delivery-lane-ten_hot-1201';

/** A lane opened for HOT from sequence 1201, its intake running. */
async function withHotLane(lanes: Lanes): Promise<void> {
  lanes.consumers.main = { pending: 500, deliveredStreamSeq: 1200 };
  crowdedBy(lanes, HOT);
  saturatedFor(lanes, TUNING.planIntervalMs * 20);
  await until(() => lanes.intakes.of(HOT).some((intake) => intake.running));
}

describe('LaneManager over fakes', () => {
  it('given a saturated main intake crowded by one tenant, another tenant seen lately and a backlog, when it plans, then it opens a lane for the tenant', async () => {
    const lanes = await started();
    lanes.consumers.main = { pending: 500, deliveredStreamSeq: 1200 };
    crowdedBy(lanes, HOT);

    saturatedFor(lanes, 100);
    await until(() => lanes.intakes.running().includes(HOT));

    expect(lanes.store.get(HOT)).toEqual({
      tenantId: HOT,
      consumerName: HOT_CONSUMER,
      startSeq: 1201,
      endSeq: null,
      closingSince: null,
    });
    expect(lanes.consumers.ensured).toContain(HOT_CONSUMER);
    expect(lanes.consumers.exists(HOT_CONSUMER)).toBe(true);
    const [intake] = lanes.intakes.of(HOT);
    expect(intake.lane.consumerName).toBe(HOT_CONSUMER);
    expect(intake.budget).toBe(MAX_CONCURRENCY);
    expect(intake.starts).toBe(1);
    expect(lanes.main.passOverCalls).toBeGreaterThanOrEqual(1);
    expect(lanes.notices.announced).toEqual([HOT]);
    // The lane covers the tenant's messages the main consumer had not yet delivered.
    expect(lanes.view.covers(HOT, 1200)).toBe(false);
    expect(lanes.view.covers(HOT, 1201)).toBe(true);
    expect(lanes.view.covers(HOT, 5000)).toBe(true);
    expect(lanes.view.covers('ten_other', 1300)).toBe(false);
    expect(await laneChanges(lanes, 'opened')).toBe(1);
    expect((await lanes.metrics.lanesOpen.get()).values[0].value).toBe(1);

    // Saturated again: the tenant has its lane, no second one.
    saturatedFor(lanes, TUNING.backlogReadIntervalMs);
    await aTickLater(lanes);
    expect(lanes.store.opened).toHaveLength(1);
    expect(lanes.intakes.made).toHaveLength(1);
    expect(await laneChanges(lanes, 'opened')).toBe(1);
  });

  it('given a hot tenant alone (no other tenant within otherTenantWithinMs), when it plans, then no lane opens, until another tenant is seen', async () => {
    const lanes = await started();
    lanes.consumers.main = { pending: 500, deliveredStreamSeq: 1200 };

    crowdedBy(lanes, HOT, null);
    saturatedFor(lanes, 100);
    await aTickLater(lanes);
    crowdedBy(lanes, HOT, TUNING.otherTenantWithinMs + 1);
    saturatedFor(lanes, 100);
    await aTickLater(lanes);

    expect(lanes.store.size).toBe(0);
    expect(lanes.consumers.mainConsumerReads).toBe(0);
    expect(lanes.intakes.made).toHaveLength(0);
    expect(lanes.notices.announced).toEqual([]);

    crowdedBy(lanes, HOT, TUNING.otherTenantWithinMs);
    saturatedFor(lanes, 100);
    await until(() => lanes.intakes.running().includes(HOT));
    expect(lanes.store.get(HOT)?.startSeq).toBe(1201);
  });

  it('given a hot tenant and a small backlog (below minBacklog), when it plans, then no lane opens, until the backlog grows', async () => {
    const lanes = await started();
    crowdedBy(lanes, HOT);
    lanes.consumers.main = { pending: TUNING.minBacklog - 11, deliveredStreamSeq: 1200 };
    lanes.main.messagesHeld = 10;

    saturatedFor(lanes, 100);
    await aTickLater(lanes);

    expect(lanes.consumers.mainConsumerReads).toBe(1);
    expect(lanes.store.size).toBe(0);
    expect(lanes.intakes.made).toHaveLength(0);
    expect(await laneChanges(lanes, 'opened')).toBe(0);

    // The messages the main intake holds count as backlog too.
    lanes.main.messagesHeld = 11;
    saturatedFor(lanes, TUNING.backlogReadIntervalMs);
    await until(() => lanes.intakes.running().includes(HOT));
    expect(await laneChanges(lanes, 'opened')).toBe(1);
  });

  it('given an open lane, when its consumer has had no backlog for quietMs, then it closes at the stream end, and once the grace period is over and it holds nothing it is removed', async () => {
    const lanes = await started();
    await withHotLane(lanes);
    lanes.consumers.lastSeq = 1500;
    lanes.consumers.setProgress(HOT_CONSUMER, { pending: 30, ackPending: 4 });

    // With a backlog it stays open however long.
    lanes.clock.advance(TUNING.checkIntervalMs);
    await aTickLater(lanes);
    lanes.clock.advance(TUNING.quietMs);
    await aTickLater(lanes);
    expect(lanes.store.get(HOT)?.endSeq).toBeNull();
    expect((await lanes.metrics.lanePending.get()).values[0].value).toBe(30);

    // No backlog: quiet from the next check on, closing quietMs later.
    lanes.consumers.setProgress(HOT_CONSUMER, { pending: 0, ackPending: 4 });
    lanes.clock.advance(TUNING.checkIntervalMs);
    await aTickLater(lanes);
    lanes.clock.advance(TUNING.quietMs - TUNING.checkIntervalMs);
    await aTickLater(lanes);
    expect(lanes.store.get(HOT)?.endSeq).toBeNull();
    lanes.clock.advance(TUNING.checkIntervalMs);
    const closingAt = lanes.clock.now();
    await until(() => lanes.view.get(HOT)?.endSeq != null);

    expect(lanes.store.get(HOT)).toMatchObject({ endSeq: 1500, closingSince: new Date(closingAt) });
    expect(lanes.notices.announced).toEqual([HOT, HOT]);
    expect(await laneChanges(lanes, 'closing')).toBe(1);
    expect(lanes.view.covers(HOT, 1500)).toBe(true);
    expect(lanes.view.covers(HOT, 1501)).toBe(false);
    expect(lanes.intakes.of(HOT)[0].running).toBe(true);

    // Within the grace period it stays, though it holds nothing.
    lanes.consumers.setProgress(HOT_CONSUMER, { pending: 0, ackPending: 0 });
    lanes.clock.advance(TUNING.checkIntervalMs);
    await aTickLater(lanes);
    expect(lanes.store.get(HOT)).toBeDefined();
    // After it, it stays while messages are in hand.
    lanes.consumers.setProgress(HOT_CONSUMER, { pending: 0, ackPending: 2 });
    lanes.clock.advance(TUNING.closingGraceMs - TUNING.checkIntervalMs);
    await aTickLater(lanes);
    expect(lanes.store.get(HOT)).toBeDefined();
    expect(lanes.consumers.removed).toEqual([]);

    lanes.consumers.setProgress(HOT_CONSUMER, { pending: 0, ackPending: 0 });
    lanes.clock.advance(TUNING.checkIntervalMs);
    await until(() => lanes.consumers.removed.length > 0);

    expect(lanes.store.get(HOT)).toBeUndefined();
    expect(lanes.consumers.removed).toEqual([HOT_CONSUMER]);
    expect(lanes.consumers.exists(HOT_CONSUMER)).toBe(false);
    expect(lanes.intakes.of(HOT)[0].stops).toBe(1);
    expect(lanes.intakes.running()).toEqual([]);
    expect(lanes.view.get(HOT)).toBeUndefined();
    expect(lanes.notices.announced).toEqual([HOT, HOT, HOT]);
    expect(await laneChanges(lanes, 'closed')).toBe(1);
    expect((await lanes.metrics.lanesOpen.get()).values[0].value).toBe(0);
  });

  it('given a closing lane, when its tenant is hot again and it is reopened, then its quiet time starts over', async () => {
    const lanes = await started();
    await withHotLane(lanes);
    lanes.consumers.lastSeq = 1500;
    lanes.consumers.setProgress(HOT_CONSUMER, { pending: 0, ackPending: 0 });
    lanes.clock.advance(TUNING.checkIntervalMs);
    await aTickLater(lanes);
    lanes.clock.advance(TUNING.quietMs);
    await until(() => lanes.view.get(HOT)?.endSeq != null);
    expect(await laneChanges(lanes, 'closing')).toBe(1);

    // Hot again, with a backlog behind the main intake: reopened.
    lanes.consumers.main = { pending: 500, deliveredStreamSeq: 1500 };
    saturatedFor(lanes, TUNING.backlogReadIntervalMs);
    await until(() => lanes.view.get(HOT)?.endSeq === null);
    expect(await laneChanges(lanes, 'reopened')).toBe(1);

    // Its consumer still has no backlog: the lane is not closed again before a whole quietMs.
    lanes.clock.advance(TUNING.checkIntervalMs);
    await aTickLater(lanes);
    lanes.clock.advance(TUNING.quietMs - 2 * TUNING.checkIntervalMs);
    await aTickLater(lanes);
    expect(lanes.store.get(HOT)?.endSeq).toBeNull();
    expect(await laneChanges(lanes, 'closing')).toBe(1);
    lanes.clock.advance(2 * TUNING.checkIntervalMs);
    await until(() => lanes.view.get(HOT)?.endSeq != null);
    expect(await laneChanges(lanes, 'closing')).toBe(2);
  });

  it('given maxLanes lanes open, when a tenant is hot, then it is refused a lane', async () => {
    const lanes = lanesWithFakes({ maxLanes: 2 });
    for (const [tenantId, startSeq] of [
      ['ten_a', 100],
      ['ten_b', 200],
    ] as const) {
      const lane = lanes.store.put({ tenantId, consumerName: `lane-${tenantId}`, startSeq });
      lanes.consumers.add(lane.consumerName, { pending: 10, ackPending: 0 });
    }
    await started(lanes);
    await until(() => lanes.intakes.running().length === 2);
    lanes.consumers.main = { pending: 500, deliveredStreamSeq: 1200 };

    crowdedBy(lanes, 'ten_c');
    saturatedFor(lanes, 100);
    await until(() => lanes.consumers.mainConsumerReads === 1);
    await aTickLater(lanes);

    expect(await laneChanges(lanes, 'refused')).toBe(1);
    expect(await laneChanges(lanes, 'opened')).toBe(0);
    expect(lanes.store.calls.filter((call) => call.startsWith('open'))).toEqual([]);
    expect(lanes.store.get('ten_c')).toBeUndefined();
    expect(lanes.intakes.of('ten_c')).toEqual([]);
    expect(lanes.notices.announced).toEqual([]);
  });

  it('given maxLanes lanes in the registry though this engine knows fewer, when a tenant is hot, then the registry refuses it a lane', async () => {
    const lanes = lanesWithFakes({ maxLanes: 2 });
    const first = lanes.store.put({ tenantId: 'ten_a', consumerName: 'lane-ten_a', startSeq: 100 });
    lanes.consumers.add(first.consumerName, { pending: 10, ackPending: 0 });
    await started(lanes);
    await until(() => lanes.intakes.running().length === 1);
    // Another engine opened one just now; its notice has not arrived.
    lanes.store.put({ tenantId: 'ten_b', consumerName: 'lane-ten_b', startSeq: 200 });
    lanes.consumers.main = { pending: 500, deliveredStreamSeq: 1200 };

    crowdedBy(lanes, 'ten_c');
    saturatedFor(lanes, 100);
    await until(() => lanes.store.calls.includes('open ten_c'));
    await aTickLater(lanes);

    expect(await laneChanges(lanes, 'refused')).toBe(1);
    expect(lanes.store.get('ten_c')).toBeUndefined();
    expect(lanes.intakes.of('ten_c')).toEqual([]);
    expect(lanes.notices.announced).toEqual([]);
    // It is no longer opening one: the main intake takes the tenant's messages again.
    expect(
      lanes.view.mainPutBackMs({
        tenantId: 'ten_c',
        streamSeq: 1300,
        deliveryCount: 1,
        tenantDeliveriesInHand: 0,
      }),
    ).toBeNull();
  });

  it('given a lane another engine opened, when its notice arrives, then this engine reads the registry at once and runs the lane', async () => {
    const lanes = await started();
    // The first tick reads the registry (its first check); the next check is a second later.
    await aTickLater(lanes);
    const lane = lanes.store.put({ tenantId: 'ten_x', consumerName: 'lane-ten_x', startSeq: 700 });
    lanes.consumers.add(lane.consumerName, { pending: 40, ackPending: 0 });
    await aTickLater(lanes);
    // No check is due on the fake clock: without the notice it does not know yet.
    expect(lanes.intakes.made).toEqual([]);
    expect(lanes.view.covers('ten_x', 700)).toBe(false);
    const passOvers = lanes.main.passOverCalls;

    lanes.notices.fire();
    await until(() => lanes.intakes.running().includes('ten_x'));

    expect(lanes.intakes.of('ten_x')[0].lane).toEqual(lane);
    expect(lanes.intakes.of('ten_x')[0].budget).toBe(MAX_CONCURRENCY);
    expect(lanes.view.covers('ten_x', 700)).toBe(true);
    expect(lanes.main.passOverCalls).toBe(passOvers + 1);
    expect((await lanes.metrics.lanesOpen.get()).values[0].value).toBe(1);
    expect(lanes.notices.announced).toEqual([]);
  });

  it('given a lane consumer without its row, when the sweep comes, then it is deleted and the registered lanes keep theirs', async () => {
    const lanes = lanesWithFakes();
    const kept = lanes.store.put({ tenantId: 'ten_a', consumerName: 'lane-ten_a', startSeq: 100 });
    lanes.consumers.add(kept.consumerName, { pending: 10, ackPending: 0 });
    await started(lanes);
    await aTickLater(lanes);
    const orphan = lanes.consumers.addOrphan('ten_gone', 900);
    await aTickLater(lanes);
    // The first sweep ran at the start; the next is sweepIntervalMs later.
    expect(lanes.consumers.removed).toEqual([]);

    lanes.clock.advance(TUNING.sweepIntervalMs);
    await until(() => lanes.consumers.removed.length > 0);

    expect(lanes.consumers.removed).toEqual([orphan]);
    expect(lanes.consumers.exists(orphan)).toBe(false);
    expect(lanes.consumers.exists(kept.consumerName)).toBe(true);
    expect(lanes.store.get('ten_a')).toBeDefined();
    expect(lanes.intakes.running()).toEqual(['ten_a']);
  });

  it('given lanes running, when the manager stops, then every lane intake stops and it plans no more', async () => {
    const lanes = lanesWithFakes();
    for (const [tenantId, startSeq] of [
      ['ten_a', 100],
      ['ten_b', 200],
    ] as const) {
      const lane = lanes.store.put({ tenantId, consumerName: `lane-${tenantId}`, startSeq });
      lanes.consumers.add(lane.consumerName, { pending: 10, ackPending: 0 });
    }
    await started(lanes);
    await until(() => lanes.intakes.running().length === 2);
    expect(lanes.intakes.made.map((intake) => intake.budget)).toEqual([
      MAX_CONCURRENCY / 2,
      MAX_CONCURRENCY / 2,
    ]);

    await lanes.manager.stop();

    expect(lanes.intakes.made.map((intake) => intake.stops)).toEqual([1, 1]);
    expect(lanes.intakes.running()).toEqual([]);
    expect(lanes.notices.followerCount).toBe(0);
    const reads = lanes.main.recent.busiestReads;
    await new Promise((resolve) => setTimeout(resolve, TUNING.planIntervalMs * 6));
    expect(lanes.main.recent.busiestReads).toBe(reads);
  });
});
