import { BenchEvents } from '../bench-events';
import { dec, int, NamedRun, rssTarget, spreadOf, TARGETS } from '../bench-report';
import { EngineRunContext, EngineRunResult, measureEngineRun, publishPaced } from '../bench-runs';
import type { PortBehaviour } from '../receiver-protocol';
import { burst, ScenarioKit, ScenarioOutcome, Stack, startReceiver, warmUp } from './scenario-kit';

/** How much later than the engine's timeout the hanging endpoint would answer. */
const HANG_PAST_TIMEOUT_MS = 2000;

/**
 * mixed: the same paced load on two stacks of BENCH_ENDPOINTS endpoints each: a baseline where
 * all answer 200 (as steady), and one where BENCH_MIXED_FAILING_SHARE of them answer 500 (their
 * deliveries retried on the product's schedule) and one hangs past DELIVERY_TIMEOUT. The figure:
 * the healthy endpoints' publish-to-receipt p99 over the baseline's. The paced rate is
 * BENCH_PACED_LOAD of a burst measured on the baseline first. Order: baseline, then the mixed
 * stack's engine is started and runs its rounds, then it is stopped and the baseline runs again:
 * its failing endpoints' retries would otherwise go on during the baseline's rounds. With
 * BENCH_MIXED_FAILING_ORDERING=fifo the failing and hanging endpoints are FIFO endpoints, whose
 * held queues must not slow the healthy ones either (ADR 0045).
 */
export async function mixed(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { settings, log } = kit;
  const n = settings.endpoints;
  const failing = Math.max(1, Math.round(n * settings.mixed.failingShare));
  if (failing + 2 > n) {
    throw new Error('mixed: BENCH_ENDPOINTS too small for failing, hanging and healthy endpoints');
  }
  const timeoutMs = settings.mixed.timeoutSeconds * 1000;
  const behaviours: Record<number, PortBehaviour> = {};
  // Ports 0..n-1: the baseline's; n..2n-1: the mixed stack's, failing ones first, then the hanging one.
  for (let index = 0; index < failing; index += 1) {
    behaviours[n + index] = { status: 500, delayMs: settings.answerDelayMs, counted: false };
  }
  behaviours[n + failing] = {
    status: 200,
    delayMs: timeoutMs + HANG_PAST_TIMEOUT_MS,
    counted: false,
  };
  const healthy = n - failing - 1;
  const receiver = await startReceiver(kit, 2 * n, behaviours);
  const engineEnv = { DELIVERY_TIMEOUT: `${settings.mixed.timeoutSeconds}s` };
  const base = await Stack.prepare(kit, 'baseline', receiver, { from: 0, count: n, engineEnv });
  const { failingOrdering } = settings.mixed;
  const mixedStack = await Stack.prepare(kit, 'mixed', receiver, {
    from: n,
    count: n,
    engineEnv,
    // Indexes within the stack: the failing ones first, then the hanging one.
    orderingOf: (index) => (index <= failing ? failingOrdering : undefined),
  });

  await base.startEngines(1);
  const baseContext = base.context(receiver, new BenchEvents(base.tenantId, settings.bodyBytes), n);
  await warmUp(kit, baseContext, 'baseline');
  const calibration = await burst(
    kit,
    baseContext,
    'calibration',
    Math.max(1, Math.round(settings.events / 2)),
  );
  const eventsPerSecond = (calibration.deliveriesPerSecond * settings.pacedLoad) / n;
  const count = Math.max(1, Math.round(eventsPerSecond * Math.max(1, settings.pacedSeconds)));
  log(`paced: ${count} events at ${eventsPerSecond.toFixed(1)}/s on each stack, each round`);
  const runs: NamedRun[] = [{ name: 'calibration', role: 'calibration', engine: calibration }];
  const baseline: EngineRunResult[] = [];
  const scenario: EngineRunResult[] = [];
  const paced = async (context: EngineRunContext, name: string) => {
    kit.cleanup.check();
    const run = await measureEngineRun(context, name, count, (events) =>
      publishPaced(context.publisher, context.events, events, eventsPerSecond),
    );
    log(
      `${name}: p50 ${int(run.receiver.latencyMs.p50)} ms, p99 ${int(run.receiver.latencyMs.p99)} ms ` +
        `(healthy endpoints); ${run.receiver.uncounted} requests to the others, ${int(run.engine.deferred)} deferrals`,
    );
    return run;
  };
  const baseRound = async (round: number) => {
    const run = await paced(baseContext, `baseline #${round}`);
    runs.push({ name: `baseline #${round}`, role: 'baseline', engine: run });
    baseline.push(run);
  };

  await baseRound(1);
  await mixedStack.startEngines(1);
  const mixedContext = mixedStack.context(
    receiver,
    new BenchEvents(mixedStack.tenantId, settings.bodyBytes),
    healthy,
  );
  await warmUp(kit, mixedContext, 'mixed');
  for (let round = 1; round <= settings.mixed.rounds; round += 1) {
    const run = await paced(mixedContext, `mixed #${round}`);
    runs.push({ name: `mixed #${round}`, role: 'scenario', engine: run });
    scenario.push(run);
  }
  const mixedEngines = await mixedStack.stopEngines();
  for (let round = 2; round <= Math.max(2, settings.mixed.rounds); round += 1) {
    await baseRound(round);
  }
  const engines = [...(await base.stopEngines()), ...mixedEngines];

  const baseP99 = spreadOf(baseline.map((run) => run.receiver.latencyMs.p99));
  const mixedP99 = spreadOf(scenario.map((run) => run.receiver.latencyMs.p99));
  const factor = mixedP99.median / baseP99.median;
  const medianOf = (list: EngineRunResult[], pick: (run: EngineRunResult) => number) =>
    spreadOf(list.map(pick)).median;
  return {
    description:
      `paced load to ${n} endpoints of which ${failing} answer 500 and one hangs past the ` +
      (failingOrdering === 'fifo' ? '(all FIFO) ' : '') +
      `${settings.mixed.timeoutSeconds} s timeout, against the same load to ${n} healthy ones; ` +
      'healthy endpoints’ p99',
    settings: {
      endpoints: n,
      failing,
      failingOrdering,
      hanging: 1,
      healthy,
      deliveryTimeoutSeconds: settings.mixed.timeoutSeconds,
      hangingAnswersAfterMs: timeoutMs + HANG_PAST_TIMEOUT_MS,
      eventsPerSecond,
      eventsPerRound: count,
    },
    figures: {
      // Healthy deliveries per second under the paced load (what was offered, not a ceiling).
      deliveriesPerSecond: medianOf(scenario, (run) => run.deliveriesPerSecond),
      calibrationDeliveriesPerSecond: calibration.deliveriesPerSecond,
      healthyP50Ms: medianOf(scenario, (run) => run.receiver.latencyMs.p50),
      healthyP99Ms: mixedP99,
      baselineP50Ms: medianOf(baseline, (run) => run.receiver.latencyMs.p50),
      baselineP99Ms: baseP99,
      p99OverBaseline: factor,
      requestsToFailingAndHangingPerRound: medianOf(scenario, (run) => run.receiver.uncounted),
      failedAttemptsPerRound: medianOf(scenario, (run) => run.log.failedAttempts),
      engineCpuSecondsPer1000: medianOf(scenario, (run) => run.engineCpuSecondsPer1000),
      baselineEngineCpuSecondsPer1000: medianOf(baseline, (run) => run.engineCpuSecondsPer1000),
      deferralsPer10000: medianOf(scenario, (run) => run.deferralsPer10000),
      headline:
        `healthy p99 ${int(mixedP99.median)} ms against ${int(baseP99.median)} ms ` +
        `(x${dec(factor)}) at ${int(eventsPerSecond * n)} deliveries/s offered`,
    },
    targets: [
      {
        name: 'healthy endpoints’ p99 over the baseline’s',
        target: `<= ${TARGETS.mixedP99Factor}`,
        measured: factor,
        met: factor <= TARGETS.mixedP99Factor,
      },
      rssTarget(engines),
    ],
    engines,
    runs,
  };
}
