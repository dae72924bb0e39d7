import type { EventType } from '@svc/contracts';
import { compileFilter } from '@svc/webhook-endpoints';
import { BenchEvents } from '../bench-events';
import { dec, int } from '../bench-report';
import type { BenchEndpointFilter } from '../bench-stack';
import { FAN_OUT_TYPES } from '../bench-settings';
import { ScenarioKit, ScenarioOutcome } from './scenario-kit';
import { runThroughput } from './throughput';

/**
 * What a SOC might ask of its alerts (issue 33 item 3), written so that every event of the bench
 * passes it (BenchEvents: type alert.*, severity "high", an alert_id and a title, no status):
 * with BENCH_FANOUT_FILTER=matching the engine makes the same deliveries as without filters and
 * only evaluates this per subscribed endpoint and event. Several operators, nested, on both the
 * envelope and its data, so that the cost measured is that of a realistic filter, not of `{}`.
 */
export const FAN_OUT_MATCHING_FILTER: BenchEndpointFilter = {
  type: { $startsWith: 'alert.' },
  created_at: { $gte: '2020-01-01T00:00:00Z' },
  data: {
    $and: [
      { severity: { $in: ['high', 'critical'] } },
      { alert_id: { $startsWith: 'alr_' } },
      { $not: { title: { $exists: false } } },
      // Closed alerts only when critical; the bench's alerts have no status ($neq holds).
      { $or: [{ status: { $neq: 'closed' } }, { severity: 'critical' }] },
    ],
  },
};

/**
 * fan-out: a tenant with BENCH_FANOUT_ENDPOINTS endpoints in groups of BENCH_FANOUT_WIDTH, each
 * group subscribed to one alert type; events take the types in turn, so each goes to one group
 * (50 endpoints by default) and every endpoint gets its share. The engine looks each event's
 * subscribers up among all the tenant's endpoints. With BENCH_FANOUT_FILTER=matching every
 * endpoint also has FAN_OUT_MATCHING_FILTER, and the scenario fails unless the filters refused
 * nothing: the deliveries must be those of the run without filters for the two to compare.
 */
export async function fanOut(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { endpoints, width, events, filter } = kit.settings.fanOut;
  const types = FAN_OUT_TYPES.slice(0, endpoints / width);
  const endpointFilter = filter === 'matching' ? FAN_OUT_MATCHING_FILTER : undefined;
  if (endpointFilter !== undefined) {
    // Here rather than minutes later as a run timing out for deliveries that never come.
    assertEveryTypeMatches(endpointFilter, [...types], kit.settings.bodyBytes);
  }
  const outcome = await runThroughput(kit, {
    description:
      `each event to ${width} of the tenant's ${endpoints} endpoints (${types.length} groups, ` +
      `one alert type each), all answering 200` +
      (endpointFilter !== undefined ? ', each with a payload filter every event passes' : '') +
      '; durable throughput against the raw ceiling',
    endpoints,
    deliveriesPerEvent: width,
    eventTypes: [...types],
    eventsOf: (index) => [types[index % types.length]],
    filterOf: () => endpointFilter,
    events,
    paced: false,
    extraFigures: (m) => ({
      eventsPerSecond: m.engine / width,
      headline: `${int(m.engine)}/s (${int(m.engine / width)} events/s), ratio ${dec(m.ratio)} to raw ${int(m.raw)}/s${endpointFilter !== undefined ? ', every endpoint filtered' : ''}`,
    }),
  });
  if (endpointFilter !== undefined) {
    assertNothingFilteredOut(outcome);
  }
  return {
    ...outcome,
    settings: { ...outcome.settings, filter, endpointFilter: endpointFilter ?? null },
  };
}

/** Compiles the filter as the engine does and tries it on an envelope of each type published. */
function assertEveryTypeMatches(
  filter: BenchEndpointFilter,
  types: EventType[],
  bodyBytes: number,
): void {
  const compiled = compileFilter(filter);
  if (!compiled.ok) {
    throw new Error(
      `FAN_OUT_MATCHING_FILTER does not compile: ${compiled.problems.map((p) => `${p.field}: ${p.detail}`).join('; ')}`,
    );
  }
  const samples = new BenchEvents('ten_benchsample', bodyBytes, types);
  for (const type of types) {
    const envelope = samples.next();
    const verdict = compiled.filter.explain(envelope);
    if (!verdict.matched) {
      throw new Error(
        `FAN_OUT_MATCHING_FILTER refuses the bench's ${type} events at ${verdict.decidedBy}: the runs would not compare with those without filters`,
      );
    }
  }
}

/**
 * Every measured engine run made a delivery per event and subscribed endpoint (PostgreSQL), and
 * the engine counted no event as filtered out: the same deliveries as without filters.
 */
function assertNothingFilteredOut(outcome: ScenarioOutcome): void {
  for (const run of outcome.runs) {
    if (run.role !== 'engine' || run.engine === undefined) continue;
    const { name, deliveries, log, engine } = run.engine;
    if (log.deliveries !== deliveries || engine.filteredOut !== 0) {
      throw new Error(
        `${name}: ${log.deliveries} deliveries made of the ${deliveries} expected without filters, ` +
          `${engine.filteredOut} refused by a filter: the filtered run does not compare`,
      );
    }
  }
}
