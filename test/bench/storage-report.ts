import { dec, int, table } from './bench-report';
import type { StorageBenchSettings } from './bench-settings';
import type { LatencyWindow } from './receiver-protocol';
import type { Machine } from './run-identity';
import type { LockWaiters, StorageTable, TableStorage } from './storage-probe';

/** Part 1: what one delivery costs in PostgreSQL, by table. */
export interface BytesPerDelivery {
  deliveries: number;
  /** Every delivery succeeded at its first attempt (the figures are for the plain case). */
  attempts: number;
  failedAttempts: number;
  deliveriesPerSecond: number;
  tables: {
    table: StorageTable;
    /** Increase over the run (a baseline taken after the same VACUUM ANALYZE is subtracted). */
    bytes: number;
    rows: number;
    bytesPerDelivery: number;
    rowsPerDelivery: number;
  }[];
  totalBytes: number;
  bytesPerDelivery: number;
  baselineBytes: number;
  engineExitCode: number | null;
}

export interface StorageSample {
  /** Since the start of the steady load. */
  seconds: number;
  at: string;
  totalBytes: number;
  tables: Record<StorageTable, TableStorage>;
}

/** One turn the bench took at a partition boundary: make the next partition, drop the expired. */
export interface MaintenanceTurn {
  boundary: string;
  created: string[];
  dropped: string[];
  createMs: number;
  dropMs: number;
  /** Epoch ms: the turn (create, then drop) ran from `startedAt` to `endedAt`. */
  startedAt: number;
  endedAt: number;
  /** Rows of delivery data with a key before the cutoff of the turn's moment, by table. */
  cutoffs: Record<string, string>;
  rowsBeforeCutoffBefore: Record<string, number>;
  rowsBeforeCutoffAfter: Record<string, number>;
  /** Engine sessions waiting for a lock, polled every 20 ms while the turn ran. */
  lockWaits: LockWaiters & { polls: number; pollsWithWaiters: number };
}

export interface LatencySummary {
  windows: number;
  deliveries: number;
  p50Median: number;
  p99Median: number;
  p99Max: number;
  max: number;
}

export interface SteadyRun {
  eventsPublished: number;
  deliveriesExpected: number;
  deliveriesReceived: number;
  loadStartedAt: string;
  /** Publishing took this long (the paced publisher keeps the rate). */
  publishSeconds: number;
  samples: StorageSample[];
  flat: {
    plateauSeconds: number;
    atPlateauBytes: number;
    endBytes: number;
    growth: number;
    firstPlateauMaxBytes: number;
    secondHalfMaxBytes: number;
    secondHalfRatio: number;
    tolerance: number;
    flat: boolean;
  } | null;
  legacyPartitionsDropped: string[];
  turns: MaintenanceTurn[];
  drops: {
    count: number;
    partitionsDropped: number;
    dropMs: { min: number; median: number; max: number };
    createMs: { min: number; median: number; max: number };
    rowsLeftBeforeCutoff: number;
    maxEngineSessionsWaiting: number;
    longestEngineLockWaitMs: number;
    maxEngineSessionsWaitingOnTable: number;
    longestEngineTableLockWaitMs: number;
  };
  latency: {
    windowSeconds: number;
    dropWindows: LatencySummary;
    otherWindows: LatencySummary;
    overall: { p50: number; p99: number; max: number };
    windows: (LatencyWindow & { drop: boolean; seconds: number })[];
  };
  engineKeeper: { ran: number; skipped: number; failed: number; dropped: number };
  engineExitCode: number | null;
}

export interface StorageBenchReport {
  scenario: string;
  date: string;
  commit: string;
  /** Uncommitted changes in the checkout when the bench ran. */
  commitDirty: boolean;
  machine: Machine;
  settings: StorageBenchSettings & {
    concurrency: number;
    postgres: string;
  };
  bytesPerDelivery: BytesPerDelivery | null;
  steady: SteadyRun | null;
  durationSeconds: number;
}

const median = (values: number[]) => {
  if (values.length === 0) {
    return NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export const spread = (values: number[]) => ({
  min: values.length > 0 ? Math.min(...values) : NaN,
  median: median(values),
  max: values.length > 0 ? Math.max(...values) : NaN,
});

/**
 * Whether storage stopped growing once the first partitions expired: the total at retention plus
 * one partition width (every table then drops on each boundary but stored bodies, a width later)
 * against the end, which is in the same phase of the minute when the run lasts whole widths.
 */
export function flatness(
  samples: StorageSample[],
  settings: Pick<StorageBenchSettings, 'retentionMinutes' | 'partitionMinutes' | 'flatTolerance'>,
): SteadyRun['flat'] {
  const retention = settings.retentionMinutes * 60;
  const plateauSeconds = retention + settings.partitionMinutes * 60;
  const last = samples[samples.length - 1];
  const atPlateau = samples.find((sample) => sample.seconds >= plateauSeconds);
  if (!last || !atPlateau || last.seconds <= plateauSeconds) {
    return null;
  }
  const max = (list: StorageSample[]) => Math.max(...list.map((sample) => sample.totalBytes));
  const firstPlateauMaxBytes = max(
    samples.filter((s) => s.seconds >= retention && s.seconds <= plateauSeconds),
  );
  const secondHalfMaxBytes = max(samples.filter((s) => s.seconds >= last.seconds / 2));
  const growth = last.totalBytes / atPlateau.totalBytes - 1;
  return {
    plateauSeconds,
    atPlateauBytes: atPlateau.totalBytes,
    endBytes: last.totalBytes,
    growth,
    firstPlateauMaxBytes,
    secondHalfMaxBytes,
    secondHalfRatio: secondHalfMaxBytes / firstPlateauMaxBytes,
    tolerance: settings.flatTolerance,
    flat: growth <= settings.flatTolerance,
  };
}

function summary(windows: LatencyWindow[]): LatencySummary {
  return {
    windows: windows.length,
    deliveries: windows.reduce((total, w) => total + w.count, 0),
    p50Median: median(windows.map((w) => w.p50)),
    p99Median: median(windows.map((w) => w.p99)),
    p99Max: windows.length > 0 ? Math.max(...windows.map((w) => w.p99)) : NaN,
    max: windows.length > 0 ? Math.max(...windows.map((w) => w.max)) : NaN,
  };
}

/**
 * Latency windows wholly inside the load, marked when a turn that dropped partitions overlapped
 * them. Other windows count from the first drop on, so that the engine's first minutes (JIT,
 * growing tables) are compared with nothing.
 */
export function latencyByDrops(
  windows: LatencyWindow[],
  windowMs: number,
  load: { start: number; end: number },
  turns: MaintenanceTurn[],
): Pick<SteadyRun['latency'], 'dropWindows' | 'otherWindows' | 'windows'> {
  const spans = turns
    .filter((turn) => turn.dropped.length > 0)
    .map((turn) => [turn.startedAt, turn.endedAt] as const);
  const marked = windows
    .filter((w) => w.start >= load.start && w.start + windowMs <= load.end)
    .map((w) => ({
      ...w,
      seconds: Math.round((w.start - load.start) / 1000),
      drop: spans.some(([from, to]) => from < w.start + windowMs && to >= w.start),
    }));
  const firstDrop = spans.length > 0 ? Math.min(...spans.map(([from]) => from)) : Infinity;
  const firstWindow = Math.floor(firstDrop / windowMs) * windowMs;
  return {
    dropWindows: summary(marked.filter((w) => w.drop)),
    otherWindows: summary(marked.filter((w) => !w.drop && w.start >= firstWindow)),
    windows: marked,
  };
}

const mib = (bytes: number) => dec(bytes / 2 ** 20, 1);
const pct = (fraction: number) => `${fraction >= 0 ? '+' : ''}${dec(fraction * 100, 1)} %`;
const clock = (seconds: number) =>
  `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, '0')}`;
const thousands = (value: number) =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '-';
const SHORT: Record<StorageTable, string> = {
  events: 'events',
  deliveries: 'deliveries',
  delivery_attempts: 'attempts',
  inbound_events: 'inbound',
  delivery_numbers: 'numbers',
  delivery_schedule: 'schedule',
};

export function formatStorageReport(report: StorageBenchReport): string {
  const { settings: s, machine: m } = report;
  const lines: string[] = [];
  lines.push(
    `storage bench, ${report.date}, commit ${report.commit.slice(0, 12)}${report.commitDirty ? ' (uncommitted changes)' : ''}; ` +
      `${m.os}, ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}`,
  );

  const bytes = report.bytesPerDelivery;
  if (bytes) {
    lines.push('');
    lines.push(
      `1. Bytes per delivery: ${thousands(s.events)} events of ${s.bodyBytes} bytes x ${s.endpoints} endpoints = ` +
        `${thousands(bytes.deliveries)} deliveries (attempts ${thousands(bytes.attempts)}, failed ${bytes.failedAttempts}), ` +
        `engine with DELIVERY_DATA_RETENTION=30d, DELIVERY_DATA_PARTITION_WIDTH=1d; sizes after VACUUM ANALYZE, ` +
        `less the same before publishing (${mib(bytes.baselineBytes)} MiB)`,
    );
    lines.push(
      table([
        ['table', 'rows', 'rows/delivery', 'MiB', 'bytes/delivery'],
        ...bytes.tables.map((t): [string, ...string[]] => [
          t.table,
          thousands(t.rows),
          dec(t.rowsPerDelivery, 2),
          mib(t.bytes),
          int(t.bytesPerDelivery),
        ]),
        ['total', '', '', mib(bytes.totalBytes), int(bytes.bytesPerDelivery)],
      ]),
    );
    const perDay = bytes.bytesPerDelivery * 1000 * 86_400;
    lines.push(
      `  at 1,000 deliveries/s: ${dec(perDay / 1e9, 0)} GB a day, ${dec((perDay * 30) / 1e12, 1)} TB ` +
        `for the default 30-day retention (engine burst rate ${int(bytes.deliveriesPerSecond)} deliveries/s)`,
    );
  }

  const steady = report.steady;
  if (steady) {
    lines.push('');
    lines.push(
      `2. Flat storage: engine with DELIVERY_DATA_RETENTION=${s.retentionMinutes}m, ` +
        `DELIVERY_DATA_PARTITION_WIDTH=${s.partitionMinutes}m (its keeper every 15 s), concurrency ` +
        `${s.concurrency} (${s.perEndpoint} per endpoint); ${s.rate} events/s x ` +
        `${s.endpoints} endpoints (${thousands(s.rate * s.endpoints)} deliveries/s) for ${s.minutes} min: ` +
        `${thousands(steady.eventsPublished)} events published in ${dec(steady.publishSeconds, 1)} s, ` +
        `${thousands(steady.deliveriesReceived)} of ${thousands(steady.deliveriesExpected)} deliveries received`,
    );
    lines.push(
      table([
        [
          'at',
          'total MiB',
          ...Object.values(SHORT).map((name) => `${name} MiB`),
          'partitions e/d/a/i',
        ],
        ...steady.samples.map((sample): [string, ...string[]] => [
          clock(sample.seconds),
          mib(sample.totalBytes),
          ...(Object.keys(SHORT) as StorageTable[]).map((t) => mib(sample.tables[t].bytes)),
          (['events', 'deliveries', 'delivery_attempts', 'inbound_events'] as const)
            .map((t) => sample.tables[t].partitions)
            .join('/'),
        ]),
      ]),
    );
    const flat = steady.flat;
    if (flat) {
      lines.push(
        `  at ${clock(flat.plateauSeconds)} (retention + one width): ${mib(flat.atPlateauBytes)} MiB; ` +
          `at the end: ${mib(flat.endBytes)} MiB; growth ${pct(flat.growth)} ` +
          `(tolerance ${dec(flat.tolerance * 100, 0)} %): ${flat.flat ? 'FLAT' : 'GROWING'}`,
      );
      lines.push(
        `  max over the first plateau (${clock(s.retentionMinutes * 60)}-${clock(flat.plateauSeconds)}): ` +
          `${mib(flat.firstPlateauMaxBytes)} MiB; max over the second half: ${mib(flat.secondHalfMaxBytes)} MiB ` +
          `(x${dec(flat.secondHalfRatio, 2)})`,
      );
    } else {
      lines.push(
        '  the run is too short to judge flatness (it must outlast retention + one width)',
      );
    }
    const d = steady.drops;
    lines.push(
      `  rows of delivery data before the cutoff after each drop: ${d.rowsLeftBeforeCutoff} ` +
        `(${d.count} turns dropped ${d.partitionsDropped} partitions)${d.rowsLeftBeforeCutoff === 0 && d.count > 0 ? ': gone' : ''}`,
    );
    const k = steady.engineKeeper;
    lines.push(
      `  engine's keeper: ${k.ran} turns ran, ${k.skipped} skipped (the bench held the lock), ${k.failed} failed, ` +
        `${k.dropped} partitions dropped by it; engine exit code ${steady.engineExitCode}`,
    );

    lines.push('');
    lines.push(
      `3. Partition drops under that load (the bench takes the turn at each boundary, ${s.windowSeconds}-s ` +
        `latency windows by arrival; "rest" = the minute's other windows)`,
    );
    const windowOf = (at: number) =>
      steady.latency.windows.find((w) => w.start <= at && at < w.start + s.windowSeconds * 1000);
    lines.push(
      table([
        [
          'boundary',
          'created',
          'dropped',
          'create ms',
          'drop ms',
          'rows dropped',
          'rows left',
          'engine lock waits: table / any',
          'p99 ms window / rest',
        ],
        ...steady.turns.map((turn): [string, ...string[]] => {
          const before = Object.values(turn.rowsBeforeCutoffBefore).reduce((a, b) => a + b, 0);
          const after = Object.values(turn.rowsBeforeCutoffAfter).reduce((a, b) => a + b, 0);
          const own = windowOf(turn.startedAt);
          const boundary = Date.parse(turn.boundary);
          const rest = steady.latency.windows.filter(
            (w) =>
              !w.drop && w.start >= boundary && w.start < boundary + s.partitionMinutes * 60_000,
          );
          return [
            turn.boundary.slice(11, 19),
            String(turn.created.length),
            String(turn.dropped.length),
            dec(turn.createMs, 0),
            turn.dropped.length > 0 ? dec(turn.dropMs, 0) : `(${dec(turn.dropMs, 0)})`,
            thousands(before),
            thousands(after),
            `${turn.lockWaits.onTable} (${dec(turn.lockWaits.onTableLongestMs, 0)} ms) / ` +
              `${turn.lockWaits.waiting} (${dec(turn.lockWaits.longestMs, 0)} ms)`,
            `${own ? int(own.p99) : '-'} / ${int(median(rest.map((w) => w.p99)))}`,
          ];
        }),
      ]),
    );
    lines.push(
      `  drop ms (turns that dropped): min ${dec(d.dropMs.min, 0)}, median ${dec(d.dropMs.median, 0)}, ` +
        `max ${dec(d.dropMs.max, 0)}; create ms: median ${dec(d.createMs.median, 0)}, max ${dec(d.createMs.max, 0)}; ` +
        `engine sessions waiting during turns, for a table lock: max ${d.maxEngineSessionsWaitingOnTable}, ` +
        `longest ${dec(d.longestEngineTableLockWaitMs, 0)} ms; for any lock (rows, other transactions too): ` +
        `max ${d.maxEngineSessionsWaiting}, longest ${dec(d.longestEngineLockWaitMs, 0)} ms`,
    );
    const l = steady.latency;
    const row = (name: string, x: LatencySummary): [string, ...string[]] => [
      name,
      String(x.windows),
      thousands(x.deliveries),
      int(x.p50Median),
      int(x.p99Median),
      int(x.p99Max),
      int(x.max),
    ];
    lines.push(
      table([
        [
          'publish-to-receipt (ms)',
          'windows',
          'deliveries',
          'p50 (median)',
          'p99 (median)',
          'p99 (max)',
          'max',
        ],
        row('windows with a drop', l.dropWindows),
        row('other windows', l.otherWindows),
      ]),
    );
    lines.push(
      `  whole load: p50 ${int(l.overall.p50)} ms, p99 ${int(l.overall.p99)} ms, max ${int(l.overall.max)} ms`,
    );
  }
  lines.push('');
  lines.push(`bench took ${clock(report.durationSeconds)} (min:s)`);
  return lines.join('\n');
}
