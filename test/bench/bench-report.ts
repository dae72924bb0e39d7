import type { BenchSettings } from './bench-settings';
import type { EngineRunResult } from './bench-runs';
import type { RawRunResult } from './raw-ceiling';

export interface RoundResult {
  raw: RawRunResult & { deliveriesPerSecond: number; cpuCores: Record<string, number> };
  engine: EngineRunResult;
  ratio: number;
}

export interface BenchReport {
  startedAt: string;
  machine: { cpus: number; node: string; memoryGiB: number };
  settings: Omit<BenchSettings, 'repoRoot' | 'resultsFile' | 'postgresUrl'> & {
    postgresUrl: string;
  };
  rounds: RoundResult[];
  paced: (EngineRunResult & { eventsPerSecond: number }) | null;
  engineMemory: {
    peakRssMiB: number;
    rssAfterWarmupMiB: number;
    rssAtEndMiB: number;
    /** From the engine's /metrics at the end (prom-client's nodejs_heap_size_*_bytes). */
    heapUsedAtEndMiB: number;
    heapTotalAtEndMiB: number;
  };
  engineExitCode: number | null;
  summary: {
    rawDeliveriesPerSecond: number;
    engineDeliveriesPerSecond: number;
    ratio: number;
    target: number;
    meetsTarget: boolean;
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export function summarise(rounds: RoundResult[]): BenchReport['summary'] {
  const raw = median(rounds.map((round) => round.raw.deliveriesPerSecond));
  const engine = median(rounds.map((round) => round.engine.deliveriesPerSecond));
  const ratio = median(rounds.map((round) => round.ratio));
  return {
    rawDeliveriesPerSecond: raw,
    engineDeliveriesPerSecond: engine,
    ratio,
    target: 0.5,
    meetsTarget: ratio >= 0.5,
  };
}

export const int = (value: number) => (Number.isFinite(value) ? Math.round(value).toString() : '-');
export const dec = (value: number, digits = 2) =>
  Number.isFinite(value) ? value.toFixed(digits) : '-';
const cores = (map: Record<string, number>) =>
  Object.entries(map)
    .map(([name, value]) => `${name} ${dec(value)}`)
    .join(', ');

/** Rows of cells, the first column left-aligned and the others right-aligned. */
export function table(rows: [string, ...string[]][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          column === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[column]),
        )
        .join('   '),
    )
    .join('\n');
}

export function formatReport(report: BenchReport): string {
  const { settings: s } = report;
  const lines: string[] = [];
  lines.push(
    `delivery bench: ${s.endpoints} endpoints (all answer 200), ${s.bodyBytes}-byte events, ` +
      `concurrency ${s.concurrency} (${s.perEndpoint} per endpoint), ` +
      `${report.machine.cpus} CPUs, Node ${report.machine.node}`,
  );
  lines.push('');
  type Cell = (round: RoundResult) => string;
  const none: Cell = () => '';
  const rows: [string, Cell, Cell][] = [
    ['deliveries', (r) => int(r.raw.requests), (r) => int(r.engine.deliveries)],
    ['elapsed (s)', (r) => dec(r.raw.elapsedMs / 1000), (r) => dec(r.engine.elapsedMs / 1000)],
    [
      'deliveries/s',
      (r) => int(r.raw.deliveriesPerSecond),
      (r) => int(r.engine.deliveriesPerSecond),
    ],
    ['ratio to raw ceiling', none, (r) => dec(r.ratio)],
    [
      'requests at the receiver',
      (r) => int(r.raw.requests),
      (r) => int(r.engine.receiver.requests),
    ],
    [
      'PostgreSQL: attempts / succeeded',
      none,
      (r) => `${int(r.engine.log.attempts)} / ${int(r.engine.log.succeeded)}`,
    ],
    [
      'failed POSTs / attempts',
      (r) => int(r.raw.failures),
      (r) => int(r.engine.log.failedAttempts),
    ],
    ['deferred (endpoint busy)', none, (r) => int(r.engine.log.deferred)],
    ['publish time (s)', none, (r) => dec(r.engine.publishMs / 1000)],
    [
      'latency p50 / p99 (ms)',
      (r) => `${int(r.raw.roundTripMs.p50)} / ${int(r.raw.roundTripMs.p99)}`,
      (r) => `${int(r.engine.receiver.latencyMs.p50)} / ${int(r.engine.receiver.latencyMs.p99)}`,
    ],
    [
      '  engine histogram p50 / p99 (ms)',
      none,
      (r) =>
        `${int(r.engine.engine.publishToDeliveredMs.p50)} / ${int(r.engine.engine.publishToDeliveredMs.p99)}`,
    ],
    [
      'HTTP attempt p50 / p99 (ms)',
      none,
      (r) =>
        `${dec(r.engine.engine.attemptDurationMs.p50, 1)} / ${dec(r.engine.engine.attemptDurationMs.p99, 1)}`,
    ],
    [
      'commits, mean batch, mean/p99 ms',
      none,
      (r) =>
        `${int(r.engine.engine.commits)}, ${dec(r.engine.engine.commitBatchSize.mean, 1)}, ` +
        `${dec(r.engine.engine.commitDurationMs.mean, 1)}/${dec(r.engine.engine.commitDurationMs.p99, 1)}`,
    ],
    ['event-loop lag p99 (ms)', none, (r) => dec(r.engine.engine.eventLoopLagP99Ms, 1)],
  ];
  lines.push(
    table([
      ['', ...report.rounds.flatMap((_, i) => [`raw #${i + 1}`, `engine #${i + 1}`])],
      ...rows.map(([label, raw, engine]): [string, ...string[]] => [
        label,
        ...report.rounds.flatMap((round) => [raw(round), engine(round)]),
      ]),
    ]),
  );
  lines.push('');
  lines.push(
    'deliveries/s: engine = deliveries PostgreSQL holds as succeeded / (first publish -> all of them durable);',
  );
  lines.push(
    '  raw = undici Agent POSTs of the same signed bodies to the same receiver, nothing recorded.',
  );
  lines.push(
    "latency: raw = client round trip; engine = receiver arrival minus the event's created_at " +
      '(set just before publishing); all events are published at once, so it includes the queue.',
  );
  lines.push(
    '  engine histogram = svc_delivery_publish_to_delivered_seconds (JetStream time to success recorded; coarse buckets).',
  );
  for (const [index, round] of report.rounds.entries()) {
    lines.push(`CPU cores busy, raw #${index + 1}: ${cores(round.raw.cpuCores)}`);
    lines.push(`CPU cores busy, engine #${index + 1}: ${cores(round.engine.cpuCores)}`);
  }
  if (report.paced) {
    const p = report.paced;
    lines.push('');
    lines.push(
      `paced: ${dec(p.eventsPerSecond, 1)} events/s (${int(p.eventsPerSecond * s.endpoints)} deliveries/s, ` +
        `${dec(s.pacedLoad * 100, 0)}% of the engine's throughput) for ${s.pacedSeconds} s: ` +
        `publish-to-delivered p50 ${int(p.receiver.latencyMs.p50)} ms, p99 ${int(p.receiver.latencyMs.p99)} ms ` +
        `(receiver); engine histogram p50 ${int(p.engine.publishToDeliveredMs.p50)} ms, ` +
        `p99 ${int(p.engine.publishToDeliveredMs.p99)} ms; deferred ${int(p.log.deferred)}`,
    );
    lines.push(`  CPU cores busy: ${cores(p.cpuCores)}`);
  }
  lines.push('');
  const memory = report.engineMemory;
  lines.push(
    `engine peak RSS (VmHWM): ${dec(memory.peakRssMiB, 1)} MiB ` +
      `(after warm-up ${dec(memory.rssAfterWarmupMiB, 1)} MiB, at the end ${dec(memory.rssAtEndMiB, 1)} MiB, ` +
      `V8 heap used/total ${dec(memory.heapUsedAtEndMiB, 1)}/${dec(memory.heapTotalAtEndMiB, 1)} MiB); ` +
      `exit code after SIGTERM: ${report.engineExitCode}`,
  );
  const sum = report.summary;
  lines.push(
    `RESULT (median of ${report.rounds.length} round${report.rounds.length === 1 ? '' : 's'}): ` +
      `engine ${int(sum.engineDeliveriesPerSecond)} deliveries/s durable, ` +
      `raw ceiling ${int(sum.rawDeliveriesPerSecond)}/s, ratio ${dec(sum.ratio)} ` +
      `(target >= ${sum.target}: ${sum.meetsTarget ? 'met' : 'NOT met'})`,
  );
  return lines.join('\n');
}
