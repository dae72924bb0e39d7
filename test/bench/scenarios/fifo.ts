import type { EventType } from '@svc/contracts';
import { BenchEvents } from '../bench-events';
import { dec, int, NamedRun, rssTarget } from '../bench-report';
import type { BenchEndpointOrdering } from '../bench-stack';
import type { ReceiverProcess } from '../receiver-process';
import type { PortBehaviour, PortSequences } from '../receiver-protocol';
import { burst, ScenarioKit, ScenarioOutcome, Stack, startReceiver, warmUp } from './scenario-kit';

/**
 * The scenario's endpoints, one receiver port each, in port order. Each subscribes to an event
 * type of its own, so that a run's events go to its endpoint only. The measured FIFO endpoint gets
 * nothing before its run, so its X-SVC-Sequence numbers must be exactly 1..N; the engine's
 * ordered path is warmed on another FIFO endpoint instead.
 */
const ENDPOINTS = {
  unordered: { port: 0, ordering: 'unordered', type: 'alert.created' },
  fifo: { port: 1, ordering: 'fifo', type: 'alert.severity_changed' },
  fifoWarmUp: { port: 2, ordering: 'fifo', type: 'alert.acknowledged' },
} as const satisfies Record<
  string,
  { port: number; ordering: BenchEndpointOrdering; type: EventType }
>;
const BY_PORT = Object.values(ENDPOINTS).sort((a, b) => a.port - b.port);

/**
 * Why what the FIFO endpoint received breaks its promise (ADR 0045: deliveries one at a time, in
 * sequence order), or null when it kept it: exactly 1..expected, in that order, never two at once.
 */
export function fifoBreach(seen: PortSequences | undefined, expected: number): string | null {
  if (!seen) {
    return 'the receiver recorded no request at the FIFO endpoint';
  }
  const problems: string[] = [];
  if (seen.maxInFlight > 1) {
    problems.push(`up to ${seen.maxInFlight} requests at once`);
  }
  if (seen.unnumbered > 0) {
    problems.push(`requests without X-SVC-Sequence: ${seen.unnumbered}`);
  }
  const misplaced = seen.arrived.findIndex((sequence, position) => sequence !== position + 1);
  if (misplaced >= 0) {
    problems.push(
      `request ${misplaced + 1} carried X-SVC-Sequence ${seen.arrived[misplaced]} ` +
        `(the first ${Math.min(seen.arrived.length, misplaced + 5)}: ` +
        `${seen.arrived.slice(0, misplaced + 5).join(', ')})`,
    );
  }
  if (seen.arrived.length !== expected) {
    problems.push(`numbered requests: ${seen.arrived.length}, not ${expected}`);
  }
  return problems.length > 0 ? problems.join('; ') : null;
}

/** Arrivals whose number is below one that arrived before them: what unordered allows. */
const overtaken = (arrived: number[]) => {
  let highest = 0;
  let count = 0;
  for (const sequence of arrived) {
    if (sequence < highest) {
      count += 1;
    }
    highest = Math.max(highest, sequence);
  }
  return count;
};

async function sequencesAt(receiver: ReceiverProcess, port: number): Promise<PortSequences> {
  const seen = (await receiver.stats()).sequences?.[port];
  return seen ?? { arrived: [], unnumbered: 0, maxInFlight: 0 };
}

/**
 * fifo (issue 32 item 4): what ordering costs one endpoint. One tenant, one engine; an endpoint
 * answering 200 after BENCH_FIFO_ANSWER_DELAY_MS gets BENCH_FIFO_EVENTS events published at once,
 * first registered unordered (up to BENCH_PER_ENDPOINT attempts at once), then a fresh one
 * registered with `ordering: "fifo"` (one at a time: the next only once the one before has
 * succeeded). Each run is timed to durable, as every scenario's; the receiver checks that the FIFO
 * endpoint got X-SVC-Sequence 1..N in order and never two at once, and the scenario fails if not.
 * One run each, unordered first: compare them with the machine's load (the CPU lines) in mind.
 */
export async function fifo(kit: ScenarioKit): Promise<ScenarioOutcome> {
  const { settings, log } = kit;
  const { events, answerDelayMs } = settings.fifo;
  const answering: PortBehaviour = {
    status: 200,
    delayMs: answerDelayMs,
    counted: true,
    recordSequences: true,
  };
  const receiver = await startReceiver(
    kit,
    BY_PORT.length,
    Object.fromEntries(BY_PORT.map(({ port }) => [port, answering])),
  );
  const stack = await Stack.prepare(kit, kit.name, receiver, {
    eventsOf: (port) => [BY_PORT[port].type],
    orderingOf: (port) => BY_PORT[port].ordering,
  });
  const contextOf = (type: EventType) =>
    stack.context(receiver, new BenchEvents(stack.tenantId, settings.bodyBytes, [type]), 1);
  await stack.startEngines(1);
  await warmUp(kit, contextOf(ENDPOINTS.unordered.type), 'unordered');
  await warmUp(kit, contextOf(ENDPOINTS.fifoWarmUp.type), 'fifo (another endpoint)');

  const unordered = await burst(kit, contextOf(ENDPOINTS.unordered.type), 'unordered', events);
  const unorderedSeen = await sequencesAt(receiver, ENDPOINTS.unordered.port);
  const ordered = await burst(kit, contextOf(ENDPOINTS.fifo.type), 'fifo', events);
  const fifoSeen = await sequencesAt(receiver, ENDPOINTS.fifo.port);
  const engines = await stack.stopEngines();

  const runs: NamedRun[] = [
    { name: 'unordered', role: 'baseline', engine: unordered },
    { name: 'fifo', role: 'scenario', engine: ordered },
  ];
  const ratio = ordered.deliveriesPerSecond / unordered.deliveriesPerSecond;
  // One attempt at a time, each answered after the delay: no FIFO endpoint can go faster.
  const fifoBoundOnPaper = answerDelayMs > 0 ? 1000 / answerDelayMs : NaN;
  const breach = fifoBreach(fifoSeen, events);
  const figures: ScenarioOutcome['figures'] = {
    fifoDeliveriesPerSecond: ordered.deliveriesPerSecond,
    unorderedDeliveriesPerSecond: unordered.deliveriesPerSecond,
    fifoToUnordered: ratio,
    fifoP50Ms: ordered.receiver.latencyMs.p50,
    fifoP99Ms: ordered.receiver.latencyMs.p99,
    unorderedP50Ms: unordered.receiver.latencyMs.p50,
    unorderedP99Ms: unordered.receiver.latencyMs.p99,
    fifoBoundOnPaperPerSecond: fifoBoundOnPaper,
    fifoMsPerDelivery: ordered.elapsedMs / ordered.deliveries,
    fifoEngineCpuSecondsPer1000: ordered.engineCpuSecondsPer1000,
    unorderedEngineCpuSecondsPer1000: unordered.engineCpuSecondsPer1000,
    fifoOrder:
      breach ?? `X-SVC-Sequence 1..${events} in order, ${fifoSeen.maxInFlight} at most at once`,
    // Counts as words: the report prints numbers below 10 with three decimals.
    unorderedOrder:
      `${unorderedSeen.maxInFlight} at most at once, ${overtaken(unorderedSeen.arrived)} of ` +
      `${unorderedSeen.arrived.length} arrived after a higher number`,
    headline:
      `FIFO ${int(ordered.deliveriesPerSecond)}/s against ${int(unordered.deliveriesPerSecond)}/s ` +
      `unordered (ratio ${dec(ratio)}; ${int(fifoBoundOnPaper)}/s on paper), ` +
      `p99 ${int(ordered.receiver.latencyMs.p99)} against ${int(unordered.receiver.latencyMs.p99)} ms`,
  };
  if (breach) {
    // The figures are not reported for a failed scenario: keep them in the log.
    log(`figures: ${JSON.stringify(figures)}`);
    throw new Error(`the FIFO endpoint's deliveries broke its order: ${breach}`);
  }
  return {
    description:
      `${events} events at once to one endpoint answering 200 after ${answerDelayMs} ms: ` +
      `unordered (${settings.perEndpoint} at once at most), then a fresh endpoint with ` +
      'ordering "fifo" (one at a time, X-SVC-Sequence checked 1..N in order)',
    settings: {
      fifoEvents: events,
      fifoAnswerDelayMs: answerDelayMs,
      endpoints: BY_PORT.map(({ ordering, type }) => ({ ordering, type })),
    },
    figures,
    targets: [rssTarget(engines)],
    engines,
    runs,
  };
}
