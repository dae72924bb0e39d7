import { median, Spread, spreadOf } from './bench-report';
import type { RoundResult, TimedRequest } from './console-page';
import type { Machine } from './run-identity';

/** Issue 31, item 6: the endpoints page usable within 1 s; at most 150 KB of gzipped JavaScript. */
export const CONSOLE_TARGETS = { usableMs: 1000, firstPageJsKb: 150 };

/** One kind of request over the rounds: per round its figures, then the medians of those. */
export interface RequestKindFigures {
  kind: string;
  /** Requests of this kind per round (median). */
  count: number;
  /** When the first was sent and the last answered, ms from the navigation's start (medians). */
  firstStartMs: number;
  lastEndMs: number;
  /** Start to answer, per request: the median over all rounds' requests, and the largest. */
  durationMs: { median: number; max: number };
  /** Sent to first byte (the API's time plus loopback). */
  serverMs: number;
  /** Start to sent: waiting for one of the browser's six connections to the origin. */
  queuedMs: number;
  largestBodyBytes: number;
}

export interface TenantFigures {
  label: string;
  endpoints: number;
  attempts: number;
  rows: number;
  usableMs: Spread;
  tableShownMs: Spread;
  documentEndMs: number;
  assetsEndMs: number;
  apiRequests: number[];
  requests: number[];
  largestApiResponse: { bytes: number; kind: string };
  apiBodyBytes: number;
  /** CPU the API process used per page load (median; 10 ms ticks). */
  apiCpuMs: number;
  kinds: RequestKindFigures[];
}

export interface ScriptFigures {
  /** `npm run console:size`'s list: index.html's scripts and their static imports. */
  files: { file: string; bytes: number; gzipBytes: number }[];
  gzipKb: number;
  /** The scripts the browser actually fetched for the endpoints page (file names). */
  loadedByPage: string[];
}

export interface ConsoleBenchReport {
  scenario: string;
  usableMeans: string;
  date: string;
  durationSeconds: number;
  commit: string;
  commitDirty: boolean;
  machine: Machine;
  /** The machine's 1, 5 and 15 minute load averages before and after the measured rounds. */
  loadAverage: { beforeRounds: number[]; afterRounds: number[] };
  chromium: string;
  settings: Record<string, unknown>;
  partitions: string[];
  tenants: TenantFigures[];
  scripts: ScriptFigures;
  targets: { name: string; target: string; measured: number; met: boolean }[];
  rounds: Record<string, RoundResult[]>;
}

const apiKind = (request: TimedRequest) => request.kind.includes(' /v1/');

function kindFigures(rounds: RoundResult[], kind: string): RequestKindFigures {
  const perRound = rounds.map((round) => round.requests.filter((r) => r.kind === kind));
  const all = perRound.flat();
  const present = perRound.filter((requests) => requests.length > 0);
  return {
    kind,
    count: median(perRound.map((requests) => requests.length)),
    firstStartMs: median(present.map((requests) => Math.min(...requests.map((r) => r.startMs)))),
    lastEndMs: median(present.map((requests) => Math.max(...requests.map((r) => r.endMs)))),
    durationMs: {
      median: median(all.map((r) => r.endMs - r.startMs)),
      max: Math.max(...all.map((r) => r.endMs - r.startMs)),
    },
    serverMs: median(all.map((r) => r.firstByteMs - r.sentMs)),
    queuedMs: median(all.map((r) => r.sentMs - r.startMs)),
    largestBodyBytes: Math.max(...all.map((r) => r.bodyBytes)),
  };
}

export function tenantFigures(
  tenant: { label: string; endpoints: number; attempts: number },
  rounds: RoundResult[],
): TenantFigures {
  const api = rounds.flatMap((round) => round.requests.filter(apiKind));
  const largest = api.reduce((a, b) => (b.bodyBytes > a.bodyBytes ? b : a));
  const kinds = [...new Set(rounds.flatMap((round) => round.requests.map((r) => r.kind)))];
  return {
    label: tenant.label,
    endpoints: tenant.endpoints,
    attempts: tenant.attempts,
    rows: median(rounds.map((round) => round.marks.rows)),
    usableMs: spreadOf(rounds.map((round) => round.marks.usableMs)),
    tableShownMs: spreadOf(rounds.map((round) => round.marks.tableMs)),
    documentEndMs: median(rounds.map((round) => round.documentEndMs)),
    assetsEndMs: median(
      rounds.map((round) =>
        Math.max(
          ...round.requests.filter((r) => !apiKind(r)).map((r) => r.endMs),
          round.documentEndMs,
        ),
      ),
    ),
    apiRequests: rounds.map((round) => round.apiRequestsSent),
    requests: rounds.map((round) => round.requestsSent),
    largestApiResponse: { bytes: largest.bodyBytes, kind: largest.kind },
    apiBodyBytes: median(
      rounds.map((round) =>
        round.requests.filter(apiKind).reduce((sum, r) => sum + r.bodyBytes, 0),
      ),
    ),
    apiCpuMs: median(rounds.map((round) => round.apiCpuMs ?? NaN)),
    kinds: kinds.sort().map((kind) => kindFigures(rounds, kind)),
  };
}

const ms = (value: number) => `${Math.round(value)}`;
const int = (value: number) => Math.round(value).toLocaleString('en-US');
const spread = (s: Spread) =>
  `${ms(s.median)} (${ms(Math.min(...s.rounds))} to ${ms(Math.max(...s.rounds))}; spread ${(s.spread * 100).toFixed(0)} %)`;
const counts = (values: number[]) =>
  new Set(values).size === 1 ? int(values[0]) : `${int(median(values))} (${values.join(', ')})`;
const ratio = (a: number, b: number) => (b > 0 ? `x${(a / b).toFixed(2)}` : 'n/a');

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** The API time (sent to first byte) of the endpoints list, health included. */
function listServerMs(t: TenantFigures): number {
  const list = t.kinds.filter((k) => k.kind === 'GET /v1/webhooks');
  return median(list.map((k) => k.serverMs));
}

function headline(large: TenantFigures, small: TenantFigures): string[] {
  const heading = (t: TenantFigures) =>
    `${int(t.endpoints)} endpoints, ${int(t.attempts)} attempts`;
  return [
    row(['figure', heading(large), heading(small), 'large / small']),
    row(['---', '---', '---', '---']),
    row([
      'usable (ms from navigation start), median (min to max)',
      spread(large.usableMs),
      spread(small.usableMs),
      ratio(large.usableMs.median, small.usableMs.median),
    ]),
    row([
      'table first shown, cells still loading (ms)',
      spread(large.tableShownMs),
      spread(small.tableShownMs),
      ratio(large.tableShownMs.median, small.tableShownMs.median),
    ]),
    row(['rows on the first page', int(large.rows), int(small.rows), '']),
    row([
      'API requests (the link exchange, the list with its health)',
      counts(large.apiRequests),
      counts(small.apiRequests),
      ratio(median(large.apiRequests), median(small.apiRequests)),
    ]),
    row(['requests in all', counts(large.requests), counts(small.requests), '']),
    row([
      'largest API response (body bytes)',
      `${int(large.largestApiResponse.bytes)} (${large.largestApiResponse.kind})`,
      `${int(small.largestApiResponse.bytes)} (${small.largestApiResponse.kind})`,
      ratio(large.largestApiResponse.bytes, small.largestApiResponse.bytes),
    ]),
    row([
      'API response bodies in all (bytes)',
      int(large.apiBodyBytes),
      int(small.apiBodyBytes),
      ratio(large.apiBodyBytes, small.apiBodyBytes),
    ]),
    row([
      'GET /v1/webhooks?include=health: API time, median (ms)',
      ms(listServerMs(large)),
      ms(listServerMs(small)),
      ratio(listServerMs(large), listServerMs(small)),
    ]),
    row([
      'API process CPU per API request (ms)',
      (large.apiCpuMs / median(large.apiRequests)).toFixed(1),
      (small.apiCpuMs / median(small.apiRequests)).toFixed(1),
      ratio(large.apiCpuMs / median(large.apiRequests), small.apiCpuMs / median(small.apiRequests)),
    ]),
    row([
      'API process CPU per page load (ms)',
      ms(large.apiCpuMs),
      ms(small.apiCpuMs),
      ratio(large.apiCpuMs, small.apiCpuMs),
    ]),
  ];
}

function whereTheTimeGoes(large: TenantFigures, small: TenantFigures): string[] {
  const lines = [
    row([
      'step (medians, ms)',
      `${int(large.endpoints)} endpoints`,
      `${int(small.endpoints)} endpoints`,
    ]),
    row(['---', '---', '---']),
    row(['HTML received', ms(large.documentEndMs), ms(small.documentEndMs)]),
    row(['scripts and styles received', ms(large.assetsEndMs), ms(small.assetsEndMs)]),
  ];
  const kinds = large.kinds.filter((k) => k.kind.includes(' /v1/')).map((k) => k.kind);
  for (const kind of kinds) {
    const of = (t: TenantFigures) => t.kinds.find((k) => k.kind === kind);
    const cell = (k: RequestKindFigures | undefined) =>
      k
        ? `${int(k.count)} x: ${ms(k.firstStartMs)} to ${ms(k.lastEndMs)}; each ${ms(k.durationMs.median)} (max ${ms(k.durationMs.max)}), API ${ms(k.serverMs)}, queued ${ms(k.queuedMs)}`
        : 'none';
    lines.push(row([`\`${kind}\``, cell(of(large)), cell(of(small))]));
  }
  lines.push(row(['usable', ms(large.usableMs.median), ms(small.usableMs.median)]));
  return lines;
}

/** The Markdown printed at the end of `npm run bench:console`. */
export function formatConsoleReport(report: ConsoleBenchReport): string {
  const [large, small] = report.tenants;
  const { machine } = report;
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const rounds = Object.values(report.rounds)[0]?.length ?? 0;
  return [
    `## The console's endpoints page (\`npm run bench:console\`)`,
    '',
    `${report.date.slice(0, 10)}, commit ${report.commit.slice(0, 7)}${report.commitDirty ? ' (with uncommitted changes)' : ''}; ` +
      `${machine.os}; ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB; ` +
      `Node ${machine.node}; ${report.chromium}; load average ${report.loadAverage.beforeRounds.map((v) => v.toFixed(1)).join(', ')} before the rounds, ` +
      `${report.loadAverage.afterRounds.map((v) => v.toFixed(1)).join(', ')} after; ${rounds} rounds per tenant, alternating, ` +
      'each in a fresh browser context (nothing cached), after one warm-up round each.',
    '',
    `Usable: ${report.usableMeans}`,
    '',
    ...headline(large, small),
    '',
    'Where the time goes (each request: start to answer; API: sent to first byte; queued: waiting for a connection):',
    '',
    ...whereTheTimeGoes(large, small),
    '',
    `First page JavaScript (as \`npm run console:size\` counts it): ${report.scripts.gzipKb.toFixed(1)} KB gzipped in ` +
      `${report.scripts.files.length} file(s) (${report.scripts.files.map((f) => `${f.file} ${kb(f.bytes)} KB, ${kb(f.gzipBytes)} KB gzipped`).join('; ')}); ` +
      `the page fetched ${report.scripts.loadedByPage.length} script(s): ${report.scripts.loadedByPage.join(', ')}.`,
    '',
    ...report.targets.map(
      (t) => `- ${t.name}: ${t.measured} (target ${t.target}): ${t.met ? 'met' : 'NOT met'}`,
    ),
  ].join('\n');
}
