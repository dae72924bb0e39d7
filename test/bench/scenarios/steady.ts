import { dec, int, TARGETS } from '../bench-report';
import { ScenarioKit, ScenarioOutcome } from './scenario-kit';
import { runThroughput } from './throughput';

/**
 * steady: every event to every endpoint (BENCH_ENDPOINTS, all answering 200), the engine's
 * durable throughput beside the raw ceiling of each round, then a paced run for latency.
 */
export async function steady(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { settings } = kit;
  return runThroughput(kit, {
    description:
      `each event to all ${settings.endpoints} endpoints, all answering 200; ` +
      'durable throughput against the raw ceiling of the same round, then a paced run',
    endpoints: settings.endpoints,
    deliveriesPerEvent: settings.endpoints,
    eventTypes: ['alert.created'],
    events: settings.events,
    paced: true,
    extraFigures: (m) => ({
      headline: `${int(m.engine)}/s, ratio ${dec(m.ratio)} to raw ${int(m.raw)}/s`,
    }),
    extraTargets: (m) => [
      {
        name: 'ratio to the raw ceiling',
        target: `>= ${TARGETS.steadyRatio}`,
        measured: m.ratio,
        met: m.ratio >= TARGETS.steadyRatio,
      },
      {
        name: 'spread of the rounds’ ratios',
        target: `<= ${TARGETS.steadySpread}`,
        measured: m.spread,
        met: m.spread <= TARGETS.steadySpread,
      },
    ],
  });
}
