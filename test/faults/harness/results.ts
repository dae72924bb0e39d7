import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import type { Check, LedgerFigures } from './ledger';
import { REPO_ROOT, RESULTS_DIR } from './settings';

/** One scenario's outcome, as written to `<results>/<scenario>.json`. */
export interface ScenarioResult {
  scenario: string;
  description: string;
  /** The `npm run test:faults` run it belongs to (several scenarios share one). */
  run: string;
  date: string;
  durationMs: number;
  machine: { os: string; cpus: number; cpuModel: string; memoryGiB: number; node: string };
  commit: { sha: string; changesInCheckout: boolean };
  settings: Record<string, unknown>;
  figures: LedgerFigures & Record<string, unknown>;
  checks: Check[];
  passed: boolean;
}

export const RUN_VARIABLE = 'FAULTS_RUN_ID';

export function machine(): ScenarioResult['machine'] {
  return {
    os: `${type()} ${release()}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
  };
}

export function commit(): ScenarioResult['commit'] {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  try {
    return {
      sha: git('rev-parse', 'HEAD'),
      changesInCheckout: git('status', '--porcelain') !== '',
    };
  } catch {
    return { sha: 'unknown', changesInCheckout: true };
  }
}

export function writeResult(result: ScenarioResult): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${result.scenario}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

/** The results of one run, in the order their scenarios ran. */
export function resultsOfRun(run: string): ScenarioResult[] {
  if (!existsSync(RESULTS_DIR)) {
    return [];
  }
  return readdirSync(RESULTS_DIR)
    .filter((file) => file.endsWith('.json') && file !== 'latest.json')
    .map((file) => JSON.parse(readFileSync(join(RESULTS_DIR, file), 'utf8')) as ScenarioResult)
    .filter((result) => result.run === run)
    .sort((a, b) => a.date.localeCompare(b.date));
}

const seconds = (value: number | null | undefined) =>
  value === null || value === undefined ? '-' : (value / 1000).toFixed(1);

const total = (counts: Record<string, number>) =>
  Object.values(counts).reduce((sum, count) => sum + count, 0);

/** Results written before the ledger judged sequence numbers have none. */
const sequenceFindings = (sequences: LedgerFigures['sequences'] | undefined) =>
  sequences ? `${total(sequences.receivers)} / ${total(sequences.log)}` : '-';

/**
 * FIFO findings, then what a crash window excused (in flight together, re-sent after a later
 * number); results written before the ledger judged FIFO endpoints have none.
 */
const fifoFindings = (fifo: LedgerFigures['fifo'] | undefined) => {
  if (!fifo) {
    return '-';
  }
  const endpoints = Object.values(fifo.endpoints);
  const excused = (pick: (e: (typeof endpoints)[number]) => number) =>
    endpoints.reduce((sum, e) => sum + pick(e), 0);
  return `${total(fifo.findings)} (${excused((e) => e.inFlightTogetherInCrashWindow)} / ${excused((e) => e.resentAfterLaterInCrashWindow)})`;
};

/** The run's summary: one line per scenario, in a Markdown table (as docs/testing.md shows it). */
export function summaryTable(results: ScenarioResult[]): string {
  const header = [
    'scenario',
    'events',
    'pairs',
    'arrived',
    'POSTs',
    'duplicates (crash window / outside)',
    'unrecorded POSTs (crash window / outside)',
    'stuck',
    'sequence findings (receivers / log)',
    'FIFO findings (crash window: together / re-sent)',
    'recovery: first / all delivered (s)',
    'checks',
    'time (s)',
  ];
  const rows = results.map((result) => {
    const f = result.figures;
    const worst = (pick: (r: (typeof f.recovery)[number]) => number | null) =>
      f.recovery.reduce<number | null>((max, r) => {
        const value = pick(r);
        return value === null || (max !== null && max >= value) ? max : value;
      }, null);
    const recovery =
      f.recovery.length === 0
        ? '-'
        : `${seconds(worst((r) => r.firstDeliveryAfterMs))} / ${seconds(worst((r) => r.backlogDeliveredAfterMs))}${
            f.recovery.length > 1 ? ` (worst of ${f.recovery.length})` : ''
          }`;
    const failed = result.checks.filter((c) => !c.ok).length;
    return [
      result.scenario,
      String(f.events),
      String(f.pairs),
      String(f.pairsArrived),
      String(f.posts),
      `${f.duplicates.inCrashWindow} / ${f.duplicates.outsideCrashWindow}`,
      `${f.unrecordedPosts.inCrashWindow} / ${f.unrecordedPosts.outsideCrashWindow}`,
      String(f.stuck),
      sequenceFindings(f.sequences),
      fifoFindings(f.fifo),
      recovery,
      failed === 0
        ? `${result.checks.length} passed`
        : `${failed} of ${result.checks.length} FAILED`,
      seconds(result.durationMs),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(header),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...rows.map(line),
  ].join('\n');
}
