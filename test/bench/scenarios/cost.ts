import { PLATFORM_EVENT_TYPES } from '@svc/contracts';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchEvents } from '../bench-events';
import { dec, int, NamedRun, TargetCheck, TARGETS } from '../bench-report';
import { EngineRunResult, measureEngineRun, publishPaced } from '../bench-runs';
import { FloorAtRate, FloorKind, measureFloor } from '../delivery-floor';
import { CpuMeter } from '../process-stats';
import type { ReceiverProcess } from '../receiver-process';
import {
  burst,
  engineCpuGroups,
  ScenarioKit,
  ScenarioOutcome,
  Stack,
  startReceiver,
  warmUp,
} from './scenario-kit';

/** Issue 18's targets at 200 events/s, per 1,000 deliveries, and its latency bound. */
export const COST_TARGETS = {
  rate: 200,
  engineCpuSecondsPer1000: 0.8,
  postgresCpuSecondsPer1000: 0.5,
  p99Ms: 25,
  /** Issue 35: the engine's CPU per delivery over the bare floor's, measured beside it. */
  engineToFloor: 1.3,
};

/**
 * How long the idle measurement waits after the burst. PostgreSQL 15 holds a backend's counters
 * back for up to 10 s when it goes idle less than a second after its last report
 * (PGSTAT_IDLE_INTERVAL): measured at once, the burst's last commits counted as idle ones (41 to
 * 203 a second, growing with the burst, where the idle engine sends about 8 statements a second).
 */
const IDLE_SETTLE_MS = 11_000;

/** One rate's figures: what 1,000 deliveries cost each process, and how fast they arrived. */
export interface CostAtRate {
  eventsPerSecond: number;
  deliveries: number;
  /** Deliveries per second the run achieved (durable), against the rate offered. */
  deliveriesPerSecond: number;
  engineCpuSecondsPer1000: number;
  postgresCpuSecondsPer1000: number;
  natsCpuSecondsPer1000: number;
  /**
   * PostgreSQL commits the engine asked for per delivery: its numbering statements (a commit
   * before the first POST of the events they number, ADR 0045) and its group commits of the
   * records (ADR 0033).
   */
  commitsPerDelivery: number;
  groupCommitsPerDelivery: number;
  numberingStatementsPerDelivery: number;
  /** One numbering statement's time, its commit included. */
  numberingMs: { mean: number; p99: number };
  /** Publish (the envelope's created_at) to the receiver having the whole request. */
  publishToReceiptMs: { p50: number; p99: number };
  /** The engine's largest resident memory sampled during this rate (every second). */
  enginePeakRssMiB: number;
}

/** CPU seconds per 1,000 deliveries of a group the run's CpuMeter watched. */
function perThousand(run: EngineRunResult, group: string): number {
  const cores = run.cpuCores[group] ?? NaN;
  return ((cores * (run.elapsedMs / 1000)) / run.deliveries) * 1000;
}

function costOf(run: EngineRunResult, eventsPerSecond: number, peakRssMiB: number): CostAtRate {
  return {
    eventsPerSecond,
    deliveries: run.deliveries,
    deliveriesPerSecond: run.deliveriesPerSecond,
    engineCpuSecondsPer1000: run.engineCpuSecondsPer1000,
    postgresCpuSecondsPer1000: perThousand(run, 'postgres'),
    natsCpuSecondsPer1000: perThousand(run, 'nats'),
    commitsPerDelivery: (run.engine.commits + run.engine.numberingStatements) / run.deliveries,
    groupCommitsPerDelivery: run.engine.commits / run.deliveries,
    numberingStatementsPerDelivery: run.engine.numberingStatements / run.deliveries,
    numberingMs: run.engine.numberingDurationMs,
    publishToReceiptMs: { p50: run.receiver.latencyMs.p50, p99: run.receiver.latencyMs.p99 },
    enginePeakRssMiB: peakRssMiB,
  };
}

/**
 * cost (issue 18): what a delivery costs at ordinary load, not at saturation. 1 KB events at
 * each of BENCH_COST_RATES events per second for BENCH_COST_SECONDS, every event to one of ten
 * endpoints (each subscribes to one of the ten platform event types, which the events take in
 * turn) answering at once; per rate the engine's, PostgreSQL's and NATS's CPU seconds per 1,000
 * deliveries, commits per delivery (numbering statements and group commits), publish-to-receipt
 * p50 and p99 and the engine's peak RSS.
 * Then, beside them, a burst of BENCH_COST_BURST_EVENTS published at once, and a quiet spell
 * (what an idle engine costs).
 */
export async function cost(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { settings, log } = kit;
  const { rates, seconds, burstEvents, idleSeconds, floorSeconds } = settings.cost;
  const endpoints = PLATFORM_EVENT_TYPES.length;
  const receiver = await startReceiver(kit, endpoints);
  const stack = await Stack.prepare(kit, kit.name, receiver, {
    eventsOf: (index) => [PLATFORM_EVENT_TYPES[index]],
  });
  const events = new BenchEvents(stack.tenantId, settings.bodyBytes, PLATFORM_EVENT_TYPES);
  await stack.startEngines(1);
  const context = stack.context(receiver, events, 1);
  await warmUp(kit, context, kit.name);

  const runs: NamedRun[] = [];
  const perRate: CostAtRate[] = [];
  let floor: FloorAtRate | null = null;
  let numberingFloor: FloorAtRate | null = null;
  for (const rate of rates) {
    kit.cleanup.check();
    const name = `${rate}/s`;
    log(`${name} for ${seconds} s`);
    stack.takePeakRssMiB();
    const run = await measureEngineRun(context, name, rate * seconds, (count) =>
      publishPaced(context.publisher, events, count, rate),
    );
    runs.push({ name, role: 'paced', engine: run });
    const figures = costOf(run, rate, stack.takePeakRssMiB());
    perRate.push(figures);
    log(
      `${name}: engine ${dec(figures.engineCpuSecondsPer1000)}, PostgreSQL ` +
        `${dec(figures.postgresCpuSecondsPer1000)}, NATS ${dec(figures.natsCpuSecondsPer1000)} ` +
        `CPU s per 1,000; ${dec(figures.commitsPerDelivery)} commits per delivery ` +
        `(${dec(figures.numberingStatementsPerDelivery)} numbering, ` +
        `${dec(figures.groupCommitsPerDelivery)} group commits; a numbering statement ` +
        `${dec(figures.numberingMs.mean)} ms mean, ${dec(figures.numberingMs.p99)} p99); p50 ` +
        `${dec(figures.publishToReceiptMs.p50)} ms, p99 ${dec(figures.publishToReceiptMs.p99)} ms`,
    );
    if (rate === COST_TARGETS.rate && floorSeconds > 0) {
      floor = await floorBeside(kit, receiver, stack, floorSeconds, 'bare');
      numberingFloor = await floorBeside(kit, receiver, stack, floorSeconds, 'numbering');
    }
  }

  stack.takePeakRssMiB();
  const burstRun = await burst(kit, context, `burst of ${burstEvents}`, burstEvents);
  runs.push({ name: `burst of ${burstEvents}`, role: 'engine', engine: burstRun });
  const burstCost = costOf(burstRun, NaN, stack.takePeakRssMiB());

  // Idle: what the engine and PostgreSQL do with nothing to deliver (polls, timers, metrics),
  // once the burst's counters have reached pg_stat_database (see IDLE_SETTLE_MS).
  await sleep(IDLE_SETTLE_MS);
  const idle = new CpuMeter(engineCpuGroups(receiver, stack.engines));
  const commitsBefore = await stack.probe.transactionsCommitted();
  await sleep(idleSeconds * 1000);
  const idleCores = idle.coresUsed();
  const idleCommitsPerSecond =
    ((await stack.probe.transactionsCommitted()) - commitsBefore) / idleSeconds;

  const engines = await stack.stopEngines();
  const at = perRate.find((figures) => figures.eventsPerSecond === COST_TARGETS.rate);
  const targets: TargetCheck[] = [];
  if (at) {
    targets.push(
      {
        name: `engine CPU s per 1,000 deliveries at ${COST_TARGETS.rate} events/s`,
        target: `<= ${COST_TARGETS.engineCpuSecondsPer1000}`,
        measured: at.engineCpuSecondsPer1000,
        met: at.engineCpuSecondsPer1000 <= COST_TARGETS.engineCpuSecondsPer1000,
      },
      {
        name: `PostgreSQL CPU s per 1,000 deliveries at ${COST_TARGETS.rate} events/s`,
        target: `<= ${COST_TARGETS.postgresCpuSecondsPer1000}`,
        measured: at.postgresCpuSecondsPer1000,
        met: at.postgresCpuSecondsPer1000 <= COST_TARGETS.postgresCpuSecondsPer1000,
      },
      {
        name: `publish-to-receipt p99 (ms) at ${COST_TARGETS.rate} events/s`,
        target: `<= ${COST_TARGETS.p99Ms}`,
        measured: at.publishToReceiptMs.p99,
        met: at.publishToReceiptMs.p99 <= COST_TARGETS.p99Ms,
      },
    );
  }
  if (at && floor) {
    const ratio = engineToFloor(at, floor);
    targets.push({
      name: `engine CPU over the bare floor's at ${COST_TARGETS.rate} events/s (engineToFloorAt${COST_TARGETS.rate})`,
      target: `<= ${COST_TARGETS.engineToFloor}`,
      measured: ratio,
      met: ratio <= COST_TARGETS.engineToFloor,
    });
  }
  targets.push({
    name: 'engine peak RSS in the burst (MiB)',
    target: `<= ${TARGETS.peakRssMiB}`,
    measured: burstCost.enginePeakRssMiB,
    met: burstCost.enginePeakRssMiB <= TARGETS.peakRssMiB,
  });

  const figures: ScenarioOutcome['figures'] = {};
  for (const rate of perRate) {
    const key = `at${rate.eventsPerSecond}`;
    figures[`${key}EngineCpuSecondsPer1000`] = rate.engineCpuSecondsPer1000;
    figures[`${key}PostgresCpuSecondsPer1000`] = rate.postgresCpuSecondsPer1000;
    figures[`${key}NatsCpuSecondsPer1000`] = rate.natsCpuSecondsPer1000;
    figures[`${key}CommitsPerDelivery`] = rate.commitsPerDelivery;
    figures[`${key}NumberingStatementsPerDelivery`] = rate.numberingStatementsPerDelivery;
    figures[`${key}NumberingMeanMs`] = rate.numberingMs.mean;
    figures[`${key}P50Ms`] = rate.publishToReceiptMs.p50;
    figures[`${key}P99Ms`] = rate.publishToReceiptMs.p99;
    figures[`${key}EnginePeakRssMiB`] = rate.enginePeakRssMiB;
    figures[`${key}DeliveriesPerSecond`] = rate.deliveriesPerSecond;
  }
  Object.assign(figures, {
    burstDeliveriesPerSecond: burstCost.deliveriesPerSecond,
    burstEngineCpuSecondsPer1000: burstCost.engineCpuSecondsPer1000,
    burstPostgresCpuSecondsPer1000: burstCost.postgresCpuSecondsPer1000,
    burstNatsCpuSecondsPer1000: burstCost.natsCpuSecondsPer1000,
    burstCommitsPerDelivery: burstCost.commitsPerDelivery,
    burstNumberingStatementsPerDelivery: burstCost.numberingStatementsPerDelivery,
    burstEnginePeakRssMiB: burstCost.enginePeakRssMiB,
    idleEngineCores: idleCores.engine ?? NaN,
    idlePostgresCores: idleCores.postgres ?? NaN,
    idleCommitsPerSecond,
    ...floorFigures(floor, at, 'floor', 'engineToFloor'),
    ...floorFigures(numberingFloor, at, 'numberingFloor', 'engineToNumberingFloor'),
    headline: perRate
      .map(
        (rate) =>
          `${rate.eventsPerSecond}/s: engine ${dec(rate.engineCpuSecondsPer1000)}, PG ` +
          `${dec(rate.postgresCpuSecondsPer1000)} CPU s/1,000, p99 ${int(rate.publishToReceiptMs.p99)} ms`,
      )
      .join('; '),
  });
  return {
    description:
      `1 KB events at ${rates.join(', ')} events/s for ${seconds} s each, every event to one of ` +
      `${endpoints} endpoints answering at once, then a burst of ${burstEvents} and ${idleSeconds} s idle` +
      (floorSeconds > 0
        ? `; the floor process at ${COST_TARGETS.rate}/s for ${floorSeconds} s, right after the engine at that rate, bare and then numbering`
        : ''),
    settings: { rates, seconds, burstEvents, idleSeconds, floorSeconds, endpoints },
    figures,
    targets,
    engines,
    runs,
  };
}

/** A floor's figures, and the engine's cost as a multiple of it at the same rate. */
/** The engine's CPU per delivery over a floor's, measured beside it at the same rate. */
function engineToFloor(engine: CostAtRate, floor: FloorAtRate): number {
  return engine.engineCpuSecondsPer1000 / floor.cpuSecondsPer1000;
}

function floorFigures(
  floor: FloorAtRate | null,
  engine: CostAtRate | undefined,
  name: 'floor' | 'numberingFloor',
  ratioName: 'engineToFloor' | 'engineToNumberingFloor',
): ScenarioOutcome['figures'] {
  if (!floor) {
    return {};
  }
  const key = `${name}At${floor.eventsPerSecond}`;
  return {
    [`${key}CpuSecondsPer1000`]: floor.cpuSecondsPer1000,
    [`${key}PostgresCpuSecondsPer1000`]: floor.postgresCpuSecondsPer1000,
    [`${key}P50Ms`]: floor.publishToReceiptMs.p50,
    [`${key}P99Ms`]: floor.publishToReceiptMs.p99,
    [`${ratioName}At${floor.eventsPerSecond}`]: engine ? engineToFloor(engine, floor) : NaN,
  };
}

/**
 * The floor right after the engine's run at the same rate, in the same run: the machine's cost of
 * a wakeup and of a loopback write weighs on both, so their ratio travels between machines better
 * than either figure. The engine idles meanwhile.
 */
async function floorBeside(
  kit: ScenarioKit,
  receiver: ReceiverProcess,
  stack: Stack,
  seconds: number,
  kind: FloorKind,
): Promise<FloorAtRate> {
  kit.cleanup.check();
  kit.log(`${kind} floor: ${COST_TARGETS.rate}/s for ${seconds} s (floor-consumer.ts)`);
  const floor = await measureFloor(kit, receiver, stack, COST_TARGETS.rate, seconds, kind);
  kit.log(
    `${kind} floor at ${COST_TARGETS.rate}/s: ${dec(floor.cpuSecondsPer1000)} CPU s per 1,000, ` +
      `PostgreSQL ${dec(floor.postgresCpuSecondsPer1000)}; p50 ` +
      `${dec(floor.publishToReceiptMs.p50)} ms, p99 ${dec(floor.publishToReceiptMs.p99)} ms`,
  );
  return floor;
}
