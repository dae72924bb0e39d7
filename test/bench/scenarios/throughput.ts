import type { EventType } from '@svc/contracts';
import { BenchEvents } from '../bench-events';
import type { BenchEndpointFilter } from '../bench-stack';
import { NamedRun, rssTarget, spreadOf, TargetCheck } from '../bench-report';
import { measureEngineRun, publishPaced } from '../bench-runs';
import type { PortBehaviour } from '../receiver-protocol';
import {
  burst,
  rawClient,
  rawRun,
  ScenarioKit,
  ScenarioOutcome,
  Stack,
  startReceiver,
  warmUp,
} from './scenario-kit';

/** A throughput scenario: raw ceiling then engine, `rounds` times, against one stack. */
export interface ThroughputSetup {
  description: string;
  endpoints: number;
  /** Each event goes to this many of them. */
  deliveriesPerEvent: number;
  eventTypes: EventType[];
  eventsOf?: (index: number) => string[];
  /** The payload filter each endpoint is registered with (none by default). */
  filterOf?: (index: number) => BenchEndpointFilter | undefined;
  /** How every port answers (status 200, counted), e.g. after a delay. */
  behaviour?: PortBehaviour;
  /** Events per measured engine run. */
  events: number;
  /** A paced run after the rounds, for latency below saturation. */
  paced: boolean;
  /** Scenario-specific figures from the rounds' medians. */
  extraFigures?: (medians: {
    engine: number;
    raw: number;
    ratio: number;
  }) => ScenarioOutcome['figures'];
  extraTargets?: (medians: {
    engine: number;
    raw: number;
    ratio: number;
    spread: number;
  }) => TargetCheck[];
}

export async function runThroughput(
  kit: ScenarioKit,
  setup: ThroughputSetup,
): Promise<ScenarioOutcome> {
  const { settings, log } = kit;
  const behaviours: Record<number, PortBehaviour> = {};
  if (setup.behaviour) {
    for (let index = 0; index < setup.endpoints; index += 1) {
      behaviours[index] = setup.behaviour;
    }
  }
  const receiver = await startReceiver(kit, setup.endpoints, behaviours);
  const stack = await Stack.prepare(kit, kit.name, receiver, {
    eventsOf: setup.eventsOf,
    filterOf: setup.filterOf,
  });
  const events = new BenchEvents(stack.tenantId, settings.bodyBytes, setup.eventTypes);
  const raw = rawClient(kit, stack, events);
  // No more in flight than the endpoints take: with one endpoint, its connections.
  const rawConcurrency = Math.min(settings.concurrency, setup.endpoints * settings.perEndpoint);
  const deliveries = setup.events * setup.deliveriesPerEvent;

  const runs: NamedRun[] = [];
  const ratios: number[] = [];
  const engineRates: number[] = [];
  const rawRates: number[] = [];
  for (let round = 1; round <= settings.rounds; round += 1) {
    if (round === 1 && settings.warmupEvents > 0) {
      await raw.run(settings.warmupEvents * setup.deliveriesPerEvent, rawConcurrency);
    }
    const rawResult = await rawRun(kit, raw, receiver, `raw #${round}`, deliveries, rawConcurrency);
    runs.push({ name: `raw #${round}`, role: 'raw', raw: rawResult });
    if (stack.engines.length === 0) {
      await stack.startEngines(1);
      await warmUp(kit, stack.context(receiver, events, setup.deliveriesPerEvent), kit.name);
    }
    const engineRun = await burst(
      kit,
      stack.context(receiver, events, setup.deliveriesPerEvent),
      `engine #${round}`,
      setup.events,
    );
    runs.push({ name: `engine #${round}`, role: 'engine', engine: engineRun });
    engineRates.push(engineRun.deliveriesPerSecond);
    rawRates.push(rawResult.deliveriesPerSecond);
    ratios.push(engineRun.deliveriesPerSecond / rawResult.deliveriesPerSecond);
  }

  const engineRate = spreadOf(engineRates);
  const ratio = spreadOf(ratios);
  const rawRate = spreadOf(rawRates);
  const engineRuns = runs.flatMap((run) =>
    run.role === 'engine' && run.engine ? [run.engine] : [],
  );
  const medianOf = (pick: (run: (typeof engineRuns)[number]) => number) =>
    spreadOf(engineRuns.map(pick)).median;

  let paced: ScenarioOutcome['figures'] = {};
  if (setup.paced && settings.pacedSeconds > 0) {
    kit.cleanup.check();
    const eventsPerSecond = (engineRate.median * settings.pacedLoad) / setup.deliveriesPerEvent;
    const count = Math.max(1, Math.round(eventsPerSecond * settings.pacedSeconds));
    log(`paced: ${count} events at ${eventsPerSecond.toFixed(1)}/s`);
    const context = stack.context(receiver, events, setup.deliveriesPerEvent);
    const run = await measureEngineRun(context, 'paced', count, (n) =>
      publishPaced(context.publisher, events, n, eventsPerSecond),
    );
    runs.push({ name: 'paced', role: 'paced', engine: run });
    paced = {
      pacedDeliveriesPerSecond: eventsPerSecond * setup.deliveriesPerEvent,
      pacedP50Ms: run.receiver.latencyMs.p50,
      pacedP99Ms: run.receiver.latencyMs.p99,
      pacedDeferralsPer10000: run.deferralsPer10000,
    };
  }

  const engines = await stack.stopEngines();
  const medians = {
    engine: engineRate.median,
    raw: rawRate.median,
    ratio: ratio.median,
    spread: ratio.spread,
  };
  return {
    description: setup.description,
    settings: {
      endpoints: setup.endpoints,
      deliveriesPerEvent: setup.deliveriesPerEvent,
      eventTypes: setup.eventTypes,
      events: setup.events,
      answer: setup.behaviour ?? { status: 200, delayMs: settings.answerDelayMs },
      rawConcurrency,
    },
    figures: {
      deliveriesPerSecond: engineRate,
      rawDeliveriesPerSecond: rawRate,
      ratio,
      burstP50Ms: medianOf((run) => run.receiver.latencyMs.p50),
      burstP99Ms: medianOf((run) => run.receiver.latencyMs.p99),
      ...paced,
      engineCpuSecondsPer1000: medianOf((run) => run.engineCpuSecondsPer1000),
      engineCores: medianOf((run) => run.cpuCores.engine ?? NaN),
      deferralsPer10000: medianOf((run) => run.deferralsPer10000),
      ...(setup.extraFigures?.(medians) ?? {}),
    },
    targets: [...(setup.extraTargets?.(medians) ?? []), rssTarget(engines)],
    engines,
    runs,
  };
}
