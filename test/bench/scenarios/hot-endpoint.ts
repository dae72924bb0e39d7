import { dec, int } from '../bench-report';
import { ScenarioKit, ScenarioOutcome } from './scenario-kit';
import { runThroughput } from './throughput';

/**
 * hot-endpoint: every event to one endpoint that answers after BENCH_HOT_ANSWER_DELAY_MS. The
 * engine may hold BENCH_PER_ENDPOINT attempts to it at once, so that bound, not the engine, sets
 * the pace: the raw client with as many connections measures what it allows, and
 * perEndpoint / delay is the bound on paper. What does not get a slot within 250 ms is deferred
 * to the schedule (deferrals per 10,000).
 */
export async function hotEndpoint(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { settings } = kit;
  const { events, answerDelayMs } = settings.hotEndpoint;
  const bound = answerDelayMs > 0 ? (settings.perEndpoint * 1000) / answerDelayMs : NaN;
  return runThroughput(kit, {
    description:
      `every event to one endpoint answering 200 after ${answerDelayMs} ms, ` +
      `${settings.perEndpoint} attempts in flight to it at most; throughput against that bound`,
    endpoints: 1,
    deliveriesPerEvent: 1,
    eventTypes: ['alert.created'],
    behaviour: { status: 200, delayMs: answerDelayMs, counted: true },
    events,
    paced: false,
    extraFigures: (m) => ({
      boundOnPaperPerSecond: bound,
      ratioToBoundOnPaper: m.engine / bound,
      headline:
        `${int(m.engine)}/s against ${int(m.raw)}/s raw with ${settings.perEndpoint} connections ` +
        `(ratio ${dec(m.ratio)}; ${int(bound)}/s on paper)`,
    }),
  });
}
