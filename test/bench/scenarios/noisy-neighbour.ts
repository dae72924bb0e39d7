import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchEvents } from '../bench-events';
import { dec, EngineFootprint, int, NamedRun, rssTarget, TargetCheck } from '../bench-report';
import { EngineRunContext, EngineRunResult, publishBurst } from '../bench-runs';
import { createTenantWithKey, registerEndpoints } from '../bench-stack';
import { EngineProcess } from '../engine-process';
import { cpuSecondsOf } from '../process-stats';
import type { ReceiverProcess } from '../receiver-process';
import type { ReceiverStats } from '../receiver-protocol';
import { freePort, startBuiltApp } from '../service-process';
import { MetricSample, MetricsDelta } from '../stats';
import {
  burst,
  engineCpuGroups,
  ScenarioKit,
  ScenarioOutcome,
  Stack,
  startReceiver,
  warmUp,
} from './scenario-kit';

/** A lane closes 10 s after its tenant went quiet and goes 30 s later (ENGINE_TUNING.lanes). */
const LANES_GONE_WITHIN_MS = 90_000;

/** Issue 19's bound on B's publish-to-receipt p99 while A's burst is delivered. */
export const TRICKLE_P99_TARGET_MS = 250;
/** Issue 19: A's throughput with B beside it, and with lanes, at least this share of today's. */
export const BURST_THROUGHPUT_SHARE = 0.9;

/** What the noisy-neighbour scenario does, from BENCH_NOISY_* (test/bench/README.md). */
export interface NoisyNeighbourSettings {
  /** Tenant A's burst to fast endpoints (issue 19: 50,000). */
  events: number;
  /** A's endpoints, all answering at once (issue 19: 10). */
  endpoints: number;
  /** B publishes one event this often (issue 19: 200 ms). */
  trickleEveryMs: number;
  /** How long B is measured alone, before any burst. */
  aloneSeconds: number;
  /** A's burst to endpoints answering slowly (issue 19: 5,000 events, 2 s). */
  slowEvents: number;
  slowAnswerDelayMs: number;
  /** B is measured this long while A's slow burst is being delivered (it takes far longer). */
  slowWindowSeconds: number;
  /** Engine processes on the consumer, one stack each (issue 19: one and two). */
  engineCounts: number[];
  /**
   * A checkout of the engine before hot-tenant lanes, built (`dist/`), whose figures are
   * "today's" (see the README); without it the scenario has no today's figure.
   */
  baselineRoot: string | null;
}

export function noisyNeighbourSettings(
  env: NodeJS.ProcessEnv = process.env,
): NoisyNeighbourSettings {
  const integer = (name: string, fallback: number, min: number) => {
    const raw = env[name]?.trim();
    const value = raw ? Number(raw) : fallback;
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`${name}="${raw}" must be an integer of at least ${min}`);
    }
    return value;
  };
  const baselineRoot = env.BENCH_NOISY_BASELINE_ROOT?.trim() || null;
  if (baselineRoot && !existsSync(resolve(baselineRoot, 'dist/apps/delivery/src/main.js'))) {
    throw new Error(
      `BENCH_NOISY_BASELINE_ROOT: no built engine in ${baselineRoot} (dist/apps/delivery/src/main.js)`,
    );
  }
  return {
    events: integer('BENCH_NOISY_EVENTS', 50_000, 1),
    endpoints: integer('BENCH_NOISY_ENDPOINTS', 10, 1),
    trickleEveryMs: integer('BENCH_NOISY_TRICKLE_MS', 200, 10),
    aloneSeconds: integer('BENCH_NOISY_ALONE_SECONDS', 10, 1),
    slowEvents: integer('BENCH_NOISY_SLOW_EVENTS', 5000, 0),
    slowAnswerDelayMs: integer('BENCH_NOISY_SLOW_DELAY_MS', 2000, 0),
    slowWindowSeconds: integer('BENCH_NOISY_SLOW_WINDOW_SECONDS', 30, 1),
    engineCounts: (env.BENCH_NOISY_ENGINES ?? '1,2')
      .split(',')
      .map((count) => Number(count.trim()))
      .filter((count) => Number.isInteger(count) && count >= 1),
    baselineRoot,
  };
}

/** Tenant B: a tenant of its own on the stack's database, with one endpoint on its receiver. */
interface Trickler {
  tenantId: string;
  events: BenchEvents;
  receiver: ReceiverProcess;
}

/** B's figures over one phase: publish-to-receipt of every event B published meanwhile. */
export interface TrickleFigures {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The lanes as the engines counted them over a phase (ADR 0032). */
interface LaneFigures {
  opened: number;
  skipped: number;
}

const trickleFigures = (stats: ReceiverStats): TrickleFigures => ({
  events: stats.count,
  p50Ms: stats.latencyMs.p50,
  p99Ms: stats.latencyMs.p99,
  maxMs: stats.latencyMs.max,
});

async function addTrickler(kit: ScenarioKit, stack: Stack, receiver: ReceiverProcess) {
  const { tenantId, key } = await createTenantWithKey(stack.databaseUrl);
  const apiPort = await freePort();
  const api = await startBuiltApp('api', apiPort, stack.env, kit.settings.repoRoot, kit.cleanup);
  await registerEndpoints(`http://127.0.0.1:${apiPort}`, key, receiver.ports);
  await api.stop();
  return { tenantId, events: new BenchEvents(tenantId, kit.settings.bodyBytes), receiver };
}

/**
 * B publishes one event every `everyMs` while `during` runs, then waits until all have arrived:
 * B's publish-to-receipt is the receiver's arrival minus the envelope's created_at, set just
 * before publishing.
 */
async function trickleDuring<T>(
  kit: ScenarioKit,
  stack: Stack,
  trickler: Trickler,
  name: string,
  everyMs: number,
  during: () => Promise<T>,
): Promise<{ result: T; trickle: TrickleFigures }> {
  trickler.receiver.phase(name, 1000);
  let published = 0;
  let running = true;
  const trickling = (async () => {
    while (running) {
      const next = performance.now() + everyMs;
      await stack.publisher.publish(trickler.events.next());
      published += 1;
      await sleep(Math.max(0, next - performance.now()));
    }
  })();
  try {
    const result = await during();
    return { result, trickle: await finish() };
  } finally {
    running = false;
    await trickling;
  }

  async function finish(): Promise<TrickleFigures> {
    running = false;
    await trickling;
    await trickler.receiver.reached(published, kit.settings.timeoutSeconds * 1000);
    const stats = await trickler.receiver.stats();
    const windows = stats.windows ?? [];
    const first = windows[0]?.start ?? 0;
    kit.log(
      `${name}: B's slowest by second of arrival: ` +
        windows
          .filter((window) => window.max > TRICKLE_P99_TARGET_MS)
          .map((window) => `+${(window.start - first) / 1000}s ${int(window.max)} ms`)
          .join(', '),
    );
    return trickleFigures(stats);
  }
}

const metricsOf = async (engines: EngineProcess[]): Promise<MetricSample[]> =>
  (await Promise.all(engines.map((engine) => engine.metrics()))).flat();

async function laneFiguresOf(
  engines: EngineProcess[],
  before: MetricSample[],
): Promise<LaneFigures> {
  const delta = new MetricsDelta(before, await metricsOf(engines));
  return {
    opened: delta.increase('svc_delivery_intake_lane_changes_total', { change: 'opened' }),
    skipped: delta.increase('svc_delivery_intake_messages_skipped_total'),
  };
}

/**
 * Waits until no engine has a lane (the last burst's tenant went quiet, its lane closed and was
 * deleted), so that every burst starts as a first one would; resolves with how long it took.
 */
async function lanesGone(engines: EngineProcess[]): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < LANES_GONE_WITHIN_MS) {
    const open = new MetricsDelta([], await metricsOf(engines)).latest(
      'svc_delivery_intake_lanes_open',
    );
    if (open === 0) {
      return performance.now() - started;
    }
    await sleep(500);
  }
  throw new Error(`lanes still open ${LANES_GONE_WITHIN_MS / 1000} s after the last burst`);
}

/**
 * Engines built from another checkout (today's, before lanes) on a stack: started and stopped
 * here, as Stack starts only this checkout's.
 */
async function startEnginesFrom(
  kit: ScenarioKit,
  stack: Stack,
  repoRoot: string,
  count: number,
): Promise<EngineProcess[]> {
  const started: EngineProcess[] = [];
  for (let index = 0; index < count; index += 1) {
    started.push(
      await EngineProcess.start(
        { ...kit.settings, repoRoot },
        stack.env,
        stack.ns,
        kit.nc,
        (engine) => kit.cleanup.add(`engine (${stack.label})`, () => engine.stop()),
      ),
    );
  }
  return started;
}

async function stopEnginesFrom(
  label: string,
  engines: EngineProcess[],
): Promise<EngineFootprint[]> {
  const footprints: EngineFootprint[] = [];
  for (const engine of engines) {
    const memory = engine.memory();
    const metrics = new MetricsDelta([], await engine.metrics());
    const cpuSeconds = cpuSecondsOf(engine.pid);
    const stopping = performance.now();
    const exitCode = (await engine.stop(60_000)) ?? null;
    footprints.push({
      label,
      peakRssMiB: memory.peakRssMiB,
      rssAtStartMiB: NaN,
      rssAtEndMiB: memory.rssMiB,
      heapUsedMiB: metrics.latest('nodejs_heap_size_used_bytes') / 2 ** 20,
      heapTotalMiB: metrics.latest('nodejs_heap_size_total_bytes') / 2 ** 20,
      cpuSeconds,
      stopSeconds: (performance.now() - stopping) / 1000,
      exitCode,
      atPeak: null,
    });
  }
  return footprints;
}

/**
 * noisy-neighbour (issue 19, ADR 0032): tenant A publishes a burst of BENCH_NOISY_EVENTS events to
 * BENCH_NOISY_ENDPOINTS endpoints answering at once while tenant B publishes one event every
 * BENCH_NOISY_TRICKLE_MS to an endpoint of its own; then A's BENCH_NOISY_SLOW_EVENTS events to
 * the same endpoints answering after BENCH_NOISY_SLOW_DELAY_MS, B measured for
 * BENCH_NOISY_SLOW_WINDOW_SECONDS of it. With one engine and with two (a stack each), and B alone
 * and A alone first. A's figure is deliveries per second durable in PostgreSQL; B's is
 * publish-to-receipt. With BENCH_NOISY_BASELINE_ROOT, the engine before lanes runs the same
 * bursts on a stack of its own: today's figures.
 */
export async function noisyNeighbour(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const settings = noisyNeighbourSettings();
  const { log } = kit;
  const burstReceiver = await startReceiver(kit, settings.endpoints);
  const trickleReceiver = await startReceiver(kit, 1);
  const fast = () =>
    burstReceiver.configure(
      Object.fromEntries(
        burstReceiver.ports.map((_, index) => [
          index,
          { status: 200, delayMs: kit.settings.answerDelayMs, counted: true },
        ]),
      ),
    );
  const slow = () =>
    burstReceiver.configure(
      Object.fromEntries(
        burstReceiver.ports.map((_, index) => [
          index,
          { status: 200, delayMs: settings.slowAnswerDelayMs, counted: true },
        ]),
      ),
    );

  const figures: ScenarioOutcome['figures'] = {};
  const targets: TargetCheck[] = [];
  const runs: NamedRun[] = [];
  const engines: EngineFootprint[] = [];

  /** One setup: a stack, its engines, A alone (optionally), B alone (optionally), A with B. */
  const measure = async (
    label: string,
    engineCount: number,
    options: { repoRoot?: string; alone: boolean; slowVariant: boolean },
  ) => {
    fast();
    const stack = await Stack.prepare(kit, label, burstReceiver);
    const trickler = await addTrickler(kit, stack, trickleReceiver);
    const own = options.repoRoot
      ? await startEnginesFrom(kit, stack, options.repoRoot, engineCount)
      : await stack.startEngines(engineCount);
    const context: EngineRunContext = {
      ...stack.context(
        burstReceiver,
        new BenchEvents(stack.tenantId, kit.settings.bodyBytes),
        settings.endpoints,
      ),
      engines: own,
      cpuGroups: engineCpuGroups(burstReceiver, own),
    };
    await warmUp(kit, context, label);
    await trickleDuring(kit, stack, trickler, `${label}: B warm-up`, settings.trickleEveryMs, () =>
      sleep(1000),
    );
    const result: Record<string, EngineRunResult | TrickleFigures | LaneFigures | number> = {};
    kit.log(`${label}: ${own.length} engine process(es) consuming`);
    if (options.alone) {
      const alone = await trickleDuring(
        kit,
        stack,
        trickler,
        `${label}: B alone`,
        settings.trickleEveryMs,
        () => sleep(settings.aloneSeconds * 1000),
      );
      result.trickleAlone = alone.trickle;
      log(
        `${label}: B alone p50 ${int(alone.trickle.p50Ms)} ms, p99 ${int(alone.trickle.p99Ms)} ms`,
      );
      const burstAlone = await burst(kit, context, `${label}: A alone`, settings.events);
      runs.push({ name: burstAlone.name, role: 'baseline', engine: burstAlone });
      result.burstAlone = burstAlone;
    }
    if (!options.repoRoot) {
      // The burst with B starts as a first burst would: no lane (A's closes and goes once A is
      // quiet; that it does is measured too).
      result.lanesGoneAfterMs = await lanesGone(own);
    }
    const before = await metricsOf(own);
    const withTrickle = await trickleDuring(
      kit,
      stack,
      trickler,
      `${label}: B during A's burst`,
      settings.trickleEveryMs,
      () => burst(kit, context, `${label}: A with B`, settings.events),
    );
    runs.push({ name: withTrickle.result.name, role: 'scenario', engine: withTrickle.result });
    result.burstWithTrickle = withTrickle.result;
    result.trickleDuringBurst = withTrickle.trickle;
    result.lanes = await laneFiguresOf(own, before);
    log(
      `${label}: A ${int(withTrickle.result.deliveriesPerSecond)}/s; B during A's burst p50 ` +
        `${int(withTrickle.trickle.p50Ms)} ms, p99 ${int(withTrickle.trickle.p99Ms)} ms, max ` +
        `${int(withTrickle.trickle.maxMs)} ms`,
    );
    if (options.slowVariant && settings.slowEvents > 0) {
      slow();
      burstReceiver.phase(`${label}: A slow`);
      const duringSlow = await trickleDuring(
        kit,
        stack,
        trickler,
        `${label}: B during A's slow burst`,
        settings.trickleEveryMs,
        async () => {
          const started = performance.now();
          await publishBurst(stack.publisher, context.events, settings.slowEvents);
          await sleep(
            Math.max(0, settings.slowWindowSeconds * 1000 - (performance.now() - started)),
          );
          return (await burstReceiver.stats()).count / settings.slowWindowSeconds;
        },
      );
      result.slowBurstDeliveriesPerSecond = duringSlow.result;
      result.trickleDuringSlowBurst = duringSlow.trickle;
      log(
        `${label}: B during A's slow burst p50 ${int(duringSlow.trickle.p50Ms)} ms, p99 ` +
          `${int(duringSlow.trickle.p99Ms)} ms`,
      );
    }
    engines.push(
      ...(options.repoRoot ? await stopEnginesFrom(label, own) : await stack.stopEngines()),
    );
    fast();
    return result;
  };

  const setups: { key: string; result: Awaited<ReturnType<typeof measure>> }[] = [];
  if (settings.baselineRoot) {
    setups.push({
      key: 'today',
      result: await measure('today (before lanes), 1 engine', 1, {
        repoRoot: settings.baselineRoot,
        alone: true,
        slowVariant: false,
      }),
    });
  }
  for (const count of settings.engineCounts) {
    setups.push({
      key: `engines${count}`,
      result: await measure(`${count} engine${count > 1 ? 's' : ''}`, count, {
        alone: count === 1,
        slowVariant: true,
      }),
    });
  }

  const today = setups.find((setup) => setup.key === 'today')?.result;
  const todayAlone = (today?.burstAlone as EngineRunResult | undefined)?.deliveriesPerSecond;
  for (const { key, result } of setups) {
    const burstWith = result.burstWithTrickle as EngineRunResult;
    const during = result.trickleDuringBurst as TrickleFigures;
    const lanes = result.lanes as LaneFigures;
    figures[`${key}BurstDeliveriesPerSecondWithB`] = burstWith.deliveriesPerSecond;
    figures[`${key}TrickleDuringBurstP50Ms`] = during.p50Ms;
    figures[`${key}TrickleDuringBurstP99Ms`] = during.p99Ms;
    figures[`${key}TrickleDuringBurstMaxMs`] = during.maxMs;
    figures[`${key}TrickleDuringBurstEvents`] = during.events;
    figures[`${key}LanesOpened`] = lanes.opened;
    figures[`${key}MessagesSkipped`] = lanes.skipped;
    if (typeof result.lanesGoneAfterMs === 'number') {
      figures[`${key}LanesGoneAfterBurstSeconds`] = result.lanesGoneAfterMs / 1000;
    }
    if (result.burstAlone) {
      const alone = result.burstAlone as EngineRunResult;
      const trickleAlone = result.trickleAlone as TrickleFigures;
      figures[`${key}BurstDeliveriesPerSecondAlone`] = alone.deliveriesPerSecond;
      figures[`${key}TrickleAloneP50Ms`] = trickleAlone.p50Ms;
      figures[`${key}TrickleAloneP99Ms`] = trickleAlone.p99Ms;
      figures[`${key}TrickleAloneMaxMs`] = trickleAlone.maxMs;
      if (key !== 'today') {
        targets.push({
          name: `${key}: A's throughput with B over A alone`,
          target: `>= ${BURST_THROUGHPUT_SHARE}`,
          measured: burstWith.deliveriesPerSecond / alone.deliveriesPerSecond,
          met: burstWith.deliveriesPerSecond / alone.deliveriesPerSecond >= BURST_THROUGHPUT_SHARE,
        });
        if (todayAlone !== undefined) {
          const share = alone.deliveriesPerSecond / todayAlone;
          figures[`${key}BurstAloneShareOfToday`] = share;
          targets.push({
            name: `${key}: A alone over today's engine, A alone`,
            target: `>= ${BURST_THROUGHPUT_SHARE}`,
            measured: share,
            met: share >= BURST_THROUGHPUT_SHARE,
          });
        }
      }
    }
    if (key !== 'today') {
      targets.push({
        name: `${key}: B's p99 during A's burst (ms)`,
        target: `<= ${TRICKLE_P99_TARGET_MS}`,
        measured: during.p99Ms,
        met: during.p99Ms <= TRICKLE_P99_TARGET_MS,
      });
    }
    if (result.trickleDuringSlowBurst) {
      const duringSlow = result.trickleDuringSlowBurst as TrickleFigures;
      figures[`${key}SlowBurstDeliveriesPerSecond`] = result.slowBurstDeliveriesPerSecond as number;
      figures[`${key}TrickleDuringSlowBurstP50Ms`] = duringSlow.p50Ms;
      figures[`${key}TrickleDuringSlowBurstP99Ms`] = duringSlow.p99Ms;
      figures[`${key}TrickleDuringSlowBurstMaxMs`] = duringSlow.maxMs;
      targets.push({
        name: `${key}: B's p99 during A's slow burst (ms)`,
        target: `<= ${TRICKLE_P99_TARGET_MS}`,
        measured: duringSlow.p99Ms,
        met: duringSlow.p99Ms <= TRICKLE_P99_TARGET_MS,
      });
    }
  }
  const one = setups.find((setup) => setup.key === 'engines1')?.result;
  figures.headline = one
    ? `1 engine: B p99 ${int((one.trickleDuringBurst as TrickleFigures).p99Ms)} ms during A's ` +
      `burst (alone ${int((one.trickleAlone as TrickleFigures).p99Ms)} ms); A ` +
      `${int((one.burstWithTrickle as EngineRunResult).deliveriesPerSecond)}/s with B, ` +
      `${int((one.burstAlone as EngineRunResult).deliveriesPerSecond)}/s alone` +
      (todayAlone !== undefined ? `, ${int(todayAlone)}/s today` : '')
    : '';
  targets.push(rssTarget(engines));
  return {
    description:
      `tenant A's burst of ${settings.events} events to ${settings.endpoints} endpoints ` +
      `answering at once (then ${settings.slowEvents} to them answering in ` +
      `${dec(settings.slowAnswerDelayMs / 1000, 1)} s) while tenant B publishes one event every ` +
      `${settings.trickleEveryMs} ms to its own endpoint; engines: ${settings.engineCounts.join(', ')}` +
      (settings.baselineRoot ? '; and the engine before lanes' : ''),
    settings: { ...settings },
    figures,
    targets,
    engines,
    runs,
  };
}
