import { BenchEvents } from '../bench-events';
import { dec, int, rssTarget, spreadOf } from '../bench-report';
import { alternateBursts } from './paired';
import { ScenarioKit, ScenarioOutcome, Stack, startReceiver, warmUp } from './scenario-kit';

/**
 * replicas: BENCH_REPLICAS engine processes on one consumer against one engine, each on a stack
 * of its own (database, stream, consumer) with the same endpoints of one receiver, in
 * alternating bursts. The scaling factor is throughput(N) / throughput(1). Each replica has the
 * whole DELIVERY_MAX_CONCURRENCY, but all share the machine's cores with PostgreSQL, NATS and
 * the receiver: the CPU figures say how far that went.
 */
export async function replicas(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { settings } = kit;
  const count = settings.replicas;
  const receiver = await startReceiver(kit, settings.endpoints);
  const one = await Stack.prepare(kit, '1 engine', receiver);
  const many = await Stack.prepare(kit, `${count} engines`, receiver);
  await one.startEngines(1);
  await many.startEngines(count);
  const perEvent = settings.endpoints;
  const oneSide = {
    label: '1 engine',
    context: one.context(receiver, new BenchEvents(one.tenantId, settings.bodyBytes), perEvent),
  };
  const manySide = {
    label: `${count} engines`,
    context: many.context(receiver, new BenchEvents(many.tenantId, settings.bodyBytes), perEvent),
  };
  await warmUp(kit, oneSide.context, oneSide.label);
  await warmUp(kit, manySide.context, manySide.label);
  const paired = await alternateBursts(kit, oneSide, manySide, settings.events);

  const single = spreadOf(paired.baseline.map((run) => run.deliveriesPerSecond));
  const replicated = spreadOf(paired.scenario.map((run) => run.deliveriesPerSecond));
  const factors = spreadOf(
    paired.scenario.map(
      (run, index) => run.deliveriesPerSecond / paired.baseline[index].deliveriesPerSecond,
    ),
  );
  const scalingFactor = replicated.median / single.median;
  const engines = [...(await one.stopEngines()), ...(await many.stopEngines())];
  const medianOf = (runs: typeof paired.baseline, pick: (run: (typeof runs)[number]) => number) =>
    spreadOf(runs.map(pick)).median;
  return {
    description:
      `${count} engine processes on one consumer against one, in alternating bursts of ` +
      `${settings.events} events to ${settings.endpoints} endpoints; the scaling factor`,
    settings: { replicas: count, events: settings.events, endpoints: settings.endpoints },
    figures: {
      deliveriesPerSecond: replicated,
      singleEngineDeliveriesPerSecond: single,
      scalingFactor,
      scalingFactorPerRound: factors,
      engineCoresSingle: medianOf(paired.baseline, (run) => run.cpuCores.engine ?? NaN),
      engineCoresReplicated: medianOf(paired.scenario, (run) => run.cpuCores.engine ?? NaN),
      postgresCoresSingle: medianOf(paired.baseline, (run) => run.cpuCores.postgres ?? NaN),
      postgresCoresReplicated: medianOf(paired.scenario, (run) => run.cpuCores.postgres ?? NaN),
      engineCpuSecondsPer1000Single: medianOf(
        paired.baseline,
        (run) => run.engineCpuSecondsPer1000,
      ),
      engineCpuSecondsPer1000: medianOf(paired.scenario, (run) => run.engineCpuSecondsPer1000),
      deferralsPer10000: medianOf(paired.scenario, (run) => run.deferralsPer10000),
      headline:
        `x${dec(scalingFactor)}: ${int(replicated.median)}/s with ${count} engines, ` +
        `${int(single.median)}/s with one`,
    },
    targets: [rssTarget(engines)],
    engines,
    runs: paired.runs,
  };
}
