import type { EngineRunResult } from './bench-runs';
import type { MemorySample } from './memory-sampler';
import type { ScenarioName } from './bench-settings';
import type { RawRunResult } from './raw-ceiling';
import type { Machine } from './run-identity';

/** The targets of issue 14, checked in every report that has the figure. */
export const TARGETS = {
  /** Engine peak RSS (VmHWM) in every scenario. */
  peakRssMiB: 300,
  /** Steady: engine throughput over the raw ceiling of the same run. */
  steadyRatio: 0.5,
  /** Steady: (max - min) / median of the rounds' ratios. */
  steadySpread: 0.15,
  /** Mixed: healthy endpoints' p99 over the all-healthy baseline's p99 of the same run. */
  mixedP99Factor: 1.5,
  /** Backlog: first-attempt throughput with the backlog over the baseline of the same run. */
  backlogThroughputShare: 0.9,
} as const;

export type RawResult = RawRunResult & {
  deliveriesPerSecond: number;
  cpuCores: Record<string, number>;
};

/** One measured run: the raw client's, or the engine's under the scenario's setup or its baseline. */
export interface NamedRun {
  name: string;
  /** `raw`, `engine` (throughput scenarios), or `baseline` / `scenario` (paired scenarios). */
  role: 'raw' | 'engine' | 'baseline' | 'scenario' | 'paced' | 'calibration';
  raw?: RawResult;
  engine?: EngineRunResult;
}

export interface TargetCheck {
  name: string;
  /** The target as the issue words it. */
  target: string;
  measured: number;
  met: boolean;
}

/** One engine process of a scenario, read just before it was stopped. */
export interface EngineFootprint {
  label: string;
  /** VmHWM of /proc/<pid>/status: the most the process ever held resident. */
  peakRssMiB: number;
  /** VmRSS once it consumed, before any load. */
  rssAtStartMiB: number;
  rssAtEndMiB: number;
  /** prom-client's nodejs_heap_size_*_bytes at the end. */
  heapUsedMiB: number;
  heapTotalMiB: number;
  /** CPU seconds (user + system) over the process's life. */
  cpuSeconds: number;
  /** SIGTERM to exit: it finishes the attempts in flight (within DELIVERY_TIMEOUT) and records them. */
  stopSeconds: number;
  /** 0 when it stopped cleanly; null when it had to be killed (STOP_GRACE_MS). */
  exitCode: number | null;
  /** Of the once-a-second samples over its life, the one with the most resident memory. */
  atPeak: MemorySample | null;
}

/** Median, rounds and their spread ((max - min) / median) of one figure. */
export interface Spread {
  median: number;
  rounds: number[];
  spread: number;
}

export interface ScenarioReport {
  scenario: ScenarioName;
  description: string;
  date: string;
  durationSeconds: number;
  commit: string;
  /** Uncommitted changes in the checkout when the bench ran (it measures the tree as built). */
  commitDirty: boolean;
  machine: Machine;
  settings: Record<string, unknown>;
  /** The headline figures, named for what they are; see test/bench/README.md. */
  figures: Record<string, number | string | null | Spread>;
  targets: TargetCheck[];
  engines: EngineFootprint[];
  runs: NamedRun[];
  /** Median cores used meanwhile by everything but the bench's processes, and stolen by the hypervisor. */
  contention: { otherCores: number; stealCores: number };
}

export const median = (values: number[]) => {
  if (values.length === 0) {
    return NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export function spreadOf(rounds: number[]): Spread {
  const middle = median(rounds);
  return {
    median: middle,
    rounds,
    spread: rounds.length > 1 ? (Math.max(...rounds) - Math.min(...rounds)) / middle : 0,
  };
}

export function contentionOf(runs: NamedRun[]): ScenarioReport['contention'] {
  const cores = runs
    .flatMap((run) => [run.engine?.cpuCores, run.raw?.cpuCores])
    .filter((value): value is Record<string, number> => value !== undefined);
  return {
    otherCores: median(cores.map((c) => c.other ?? 0)),
    stealCores: median(cores.map((c) => c.steal ?? 0)),
  };
}

export function rssTarget(engines: EngineFootprint[]): TargetCheck {
  const peak = Math.max(...engines.map((engine) => engine.peakRssMiB));
  return {
    name: 'engine peak RSS (MiB)',
    target: `<= ${TARGETS.peakRssMiB}`,
    measured: peak,
    met: peak <= TARGETS.peakRssMiB,
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

type Cell = (run: NamedRun) => string;
const engineCell =
  (format: (engine: EngineRunResult) => string): Cell =>
  (run) =>
    run.engine ? format(run.engine) : '';
const either =
  (raw: (r: RawResult) => string, engine: (e: EngineRunResult) => string): Cell =>
  (run) =>
    run.raw ? raw(run.raw) : run.engine ? engine(run.engine) : '';

const ROWS: [string, Cell][] = [
  [
    'deliveries',
    either(
      (r) => int(r.requests),
      (e) => int(e.deliveries),
    ),
  ],
  [
    'elapsed (s)',
    either(
      (r) => dec(r.elapsedMs / 1000),
      (e) => dec(e.elapsedMs / 1000),
    ),
  ],
  [
    'deliveries/s',
    either(
      (r) => int(r.deliveriesPerSecond),
      (e) => int(e.deliveriesPerSecond),
    ),
  ],
  [
    'retries / other requests',
    engineCell((e) => `${int(e.receiver.retries)} / ${int(e.receiver.uncounted)}`),
  ],
  [
    'PostgreSQL: attempts / succeeded',
    engineCell((e) => `${int(e.log.attempts)} / ${int(e.log.succeeded)}`),
  ],
  [
    'failed POSTs / attempts',
    either(
      (r) => int(r.failures),
      (e) => int(e.log.failedAttempts),
    ),
  ],
  [
    'deferrals (per 10,000)',
    engineCell((e) => `${int(e.engine.deferred)} (${int(e.deferralsPer10000)})`),
  ],
  [
    'latency p50 / p99 (ms)',
    either(
      (r) => `${int(r.roundTripMs.p50)} / ${int(r.roundTripMs.p99)}`,
      (e) => `${int(e.receiver.latencyMs.p50)} / ${int(e.receiver.latencyMs.p99)}`,
    ),
  ],
  [
    'HTTP attempt p50 / p99 (ms)',
    engineCell(
      (e) =>
        `${dec(e.engine.attemptDurationMs.p50, 1)} / ${dec(e.engine.attemptDurationMs.p99, 1)}`,
    ),
  ],
  [
    'commits, mean batch, mean/p99 ms',
    engineCell(
      (e) =>
        `${int(e.engine.commits)}, ${dec(e.engine.commitBatchSize.mean, 1)}, ` +
        `${dec(e.engine.commitDurationMs.mean, 1)}/${dec(e.engine.commitDurationMs.p99, 1)}`,
    ),
  ],
  ['event-loop lag p99 (ms)', engineCell((e) => dec(e.engine.eventLoopLagP99Ms, 1))],
  ['engine CPU s per 1,000', engineCell((e) => dec(e.engineCpuSecondsPer1000, 3))],
  ['engine cores', engineCell((e) => dec(e.cpuCores.engine ?? NaN))],
  [
    'other processes + steal cores',
    either(
      (r) => dec((r.cpuCores.other ?? 0) + (r.cpuCores.steal ?? 0)),
      (e) => dec((e.cpuCores.other ?? 0) + (e.cpuCores.steal ?? 0)),
    ),
  ],
];

/** The runs of a scenario side by side, one column each. */
export function formatRuns(runs: NamedRun[]): string {
  return table([
    ['', ...runs.map((run) => run.name)],
    ...ROWS.map(([label, cell]): [string, ...string[]] => [label, ...runs.map(cell)]),
  ]);
}

const figure = (value: number | string | null | Spread): string => {
  if (value === null) {
    return '-';
  }
  if (typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number') {
    return Math.abs(value) >= 100 ? int(value) : dec(value, Math.abs(value) >= 10 ? 1 : 3);
  }
  return `${figure(value.median)} (rounds ${value.rounds.map(figure).join(', ')}; spread ${dec(value.spread * 100, 1)} %)`;
};

export function formatScenario(report: ScenarioReport): string {
  const lines: string[] = [];
  lines.push(`== ${report.scenario}: ${report.description}`);
  lines.push('');
  lines.push(formatRuns(report.runs));
  lines.push('');
  for (const run of report.runs) {
    const cpu = run.engine?.cpuCores ?? run.raw?.cpuCores;
    if (cpu) {
      lines.push(`CPU cores busy, ${run.name}: ${cores(cpu)}`);
    }
  }
  lines.push('');
  for (const [name, value] of Object.entries(report.figures)) {
    lines.push(`${name}: ${figure(value)}`);
  }
  for (const engine of report.engines) {
    lines.push(
      `engine ${engine.label}: peak RSS (VmHWM) ${dec(engine.peakRssMiB, 1)} MiB, at start ` +
        `${dec(engine.rssAtStartMiB, 1)} MiB, at the end ` +
        `${dec(engine.rssAtEndMiB, 1)} MiB, V8 heap used/total ${dec(engine.heapUsedMiB, 1)}/` +
        `${dec(engine.heapTotalMiB, 1)} MiB, ${dec(engine.cpuSeconds, 1)} CPU s; ` +
        `stopped in ${dec(engine.stopSeconds, 1)} s, exit code ${engine.exitCode}`,
    );
    const peak = engine.atPeak;
    if (peak) {
      lines.push(
        `  largest sample (${dec(peak.atSeconds, 0)} s after start): RSS ${dec(peak.rssMiB, 1)} MiB = ` +
          `V8 heap ${dec(peak.heapTotalMiB, 1)} (used ${dec(peak.heapUsedMiB, 1)}; ` +
          Object.entries(peak.spacesMiB)
            .map(([space, size]) => `${space} ${dec(size, 1)}`)
            .join(', ') +
          `) + external ${dec(peak.externalMiB, 1)} + the rest ` +
          `${dec(peak.rssMiB - peak.heapTotalMiB - peak.externalMiB, 1)} MiB`,
      );
    }
  }
  for (const target of report.targets) {
    lines.push(
      `TARGET ${target.name} ${target.target}: ${figure(target.measured)} ${target.met ? 'met' : 'NOT met'}`,
    );
  }
  lines.push(
    `contention: other processes ${dec(report.contention.otherCores)} cores, steal ${dec(report.contention.stealCores)} (median over the runs)`,
  );
  return lines.join('\n');
}

/** One line per scenario: its headline, the engines' peak RSS and CPU, and its targets. */
export function formatSummary(reports: ScenarioReport[]): string {
  const rows: [string, ...string[]][] = [
    ['scenario', 'headline', 'peak RSS MiB', 'CPU s/1,000', 'deferrals/10,000', 'targets not met'],
  ];
  for (const report of reports) {
    const value = (key: string) => {
      const figure = report.figures[key];
      return typeof figure === 'number'
        ? figure
        : typeof figure === 'object' && figure
          ? figure.median
          : NaN;
    };
    const missed = report.targets.filter((target) => !target.met);
    rows.push([
      report.scenario,
      typeof report.figures.headline === 'string' ? report.figures.headline : '',
      dec(Math.max(...report.engines.map((engine) => engine.peakRssMiB)), 1),
      dec(value('engineCpuSecondsPer1000'), 3),
      int(value('deferralsPer10000')),
      missed.length === 0 ? 'none' : missed.map((target) => target.name).join('; '),
    ]);
  }
  return table(rows);
}
