import { dec, int } from '../bench-report';
import { FAN_OUT_TYPES } from '../bench-settings';
import { ScenarioKit, ScenarioOutcome } from './scenario-kit';
import { runThroughput } from './throughput';

/**
 * fan-out: a tenant with BENCH_FANOUT_ENDPOINTS endpoints in groups of BENCH_FANOUT_WIDTH, each
 * group subscribed to one alert type; events take the types in turn, so each goes to one group
 * (50 endpoints by default) and every endpoint gets its share. The engine looks each event's
 * subscribers up among all the tenant's endpoints.
 */
export async function fanOut(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { endpoints, width, events } = kit.settings.fanOut;
  const types = FAN_OUT_TYPES.slice(0, endpoints / width);
  return runThroughput(kit, {
    description:
      `each event to ${width} of the tenant's ${endpoints} endpoints (${types.length} groups, ` +
      'one alert type each), all answering 200; durable throughput against the raw ceiling',
    endpoints,
    deliveriesPerEvent: width,
    eventTypes: [...types],
    eventsOf: (index) => [types[index % types.length]],
    events,
    paced: false,
    extraFigures: (m) => ({
      eventsPerSecond: m.engine / width,
      headline: `${int(m.engine)}/s (${int(m.engine / width)} events/s), ratio ${dec(m.ratio)} to raw ${int(m.raw)}/s`,
    }),
  });
}
