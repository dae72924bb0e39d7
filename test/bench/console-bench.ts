/**
 * `npm run bench:console` (issue 31, item 6; ADR 0042): is the console light and fast? The built
 * API serves the built console (dist/console) on loopback, on a database of its own; a tenant with
 * BENCH_CONSOLE_ENDPOINTS endpoints (registered through the API) and BENCH_CONSOLE_ATTEMPTS
 * attempts over the last BENCH_CONSOLE_DAYS days (written by SQL), a small tenant beside it, and
 * a third tenant as noise. Each round mints a portal link with the tenant's key and opens it in
 * headless Chromium (a fresh context: nothing cached) until the endpoints page is usable
 * (console-page.ts says what that means), alternating the tenants. Figures to stdout (Markdown)
 * and test-results/bench-console.json. Not a test: nothing fails on the figures.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { builtConsoleFolder, firstPageScripts } from '../../tools/console/first-page-scripts';
import { launchChromium } from '../support/headless-chromium';
import { BenchSettings, loadBenchSettings } from './bench-settings';
import { createDatabase, dropDatabase, newNamespace } from './bench-stack';
import { Cleanup } from './cleanup';
import { openEndpointsPage, RoundResult, TABLE_NAME } from './console-page';
import {
  CONSOLE_TARGETS,
  ConsoleBenchReport,
  formatConsoleReport,
  ScriptFigures,
  tenantFigures,
} from './console-report';
import { analyseHistory, prepareDailyPartitions, SeededTenant, seedTenant } from './console-seed';
import { appEnvironment } from './engine-process';
import { cpuSecondsOf } from './process-stats';
import { gitCommit, thisMachine } from './run-identity';
import { freePort, startBuiltApp } from './service-process';

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

function whole(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') {
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name}="${raw}" must be an integer of at least ${min}`);
  }
  return value;
}

/** BENCH_CONSOLE_* settings (docs/benchmarks.md). */
function consoleSettings(repoRoot: string) {
  return {
    large: {
      label: 'large',
      endpoints: whole('BENCH_CONSOLE_ENDPOINTS', 1000, 1),
      attempts: whole('BENCH_CONSOLE_ATTEMPTS', 100_000, 5),
    },
    small: {
      label: 'small',
      endpoints: whole('BENCH_CONSOLE_SMALL_ENDPOINTS', 10, 1),
      attempts: whole('BENCH_CONSOLE_SMALL_ATTEMPTS', 100, 5),
    },
    noise: {
      label: 'noise',
      endpoints: whole('BENCH_CONSOLE_NOISE_ENDPOINTS', 100, 1),
      attempts: whole('BENCH_CONSOLE_NOISE_ATTEMPTS', 50_000, 5),
    },
    days: whole('BENCH_CONSOLE_DAYS', 7, 1),
    rounds: whole('BENCH_CONSOLE_ROUNDS', 5, 1),
    resultsFile: resolve(
      repoRoot,
      process.env.BENCH_CONSOLE_RESULTS_FILE ?? 'test-results/bench-console.json',
    ),
  };
}

/** A one-time portal link, minted with the tenant's key as a platform's backend would. */
async function portalLink(apiUrl: string, key: string): Promise<string> {
  const response = await fetch(`${apiUrl}/v1/portal-sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const text = await response.text();
  if (response.status !== 201) {
    throw new Error(`POST /v1/portal-sessions: ${response.status} ${text}`);
  }
  return (JSON.parse(text) as { url: string }).url;
}

/** The API on a fresh, migrated database with daily partitions, serving dist/console. */
async function startApi(bench: BenchSettings, days: number, cleanup: Cleanup) {
  const ns = newNamespace();
  cleanup.add('database', () => dropDatabase(bench.postgresUrl, ns.database));
  const databaseUrl = await createDatabase(bench.postgresUrl, ns);
  const partitions = await prepareDailyPartitions(databaseUrl, days);
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env: NodeJS.ProcessEnv = {
    ...appEnvironment(bench, ns, databaseUrl, randomBytes(32).toString('base64')),
    CONSOLE_URL: `${apiUrl}/console/`,
  };
  const service = await startBuiltApp('api', apiPort, env, bench.repoRoot, cleanup);
  return { databaseUrl, apiUrl, pid: service.pid, partitions, logLevel: env.LOG_LEVEL };
}

/** One warm-up round per tenant, then `rounds` rounds each, the order swapped every round. */
async function measureRounds(
  browser: Browser,
  api: { apiUrl: string; pid: number },
  tenants: SeededTenant[],
  rounds: number,
  cleanup: Cleanup,
): Promise<Record<string, RoundResult[]>> {
  const results: Record<string, RoundResult[]> = Object.fromEntries(
    tenants.map((t) => [t.label, []]),
  );
  for (let round = 0; round <= rounds; round += 1) {
    const order = round % 2 === 0 ? tenants : [...tenants].reverse();
    for (const tenant of order) {
      cleanup.check();
      const link = await portalLink(api.apiUrl, tenant.key);
      const cpuBefore = cpuSecondsOf(api.pid);
      // BENCH_CONSOLE_SCREENSHOT=<folder>: what each tenant's page looked like when measured.
      const shots = process.env.BENCH_CONSOLE_SCREENSHOT;
      const result = await openEndpointsPage(browser, link, {
        screenshot: shots ? join(shots, `console-${tenant.label}-${round}.png`) : undefined,
      });
      result.apiCpuMs = (cpuSecondsOf(api.pid) - cpuBefore) * 1000;
      if (result.apiFailures.length > 0) {
        throw new Error(`${tenant.label}: API requests failed: ${result.apiFailures.join('; ')}`);
      }
      log(
        `${round === 0 ? 'warm-up' : `round ${round}`}, ${tenant.label}: usable at ` +
          `${result.marks.usableMs.toFixed(0)} ms, ${result.apiRequestsSent} API requests`,
      );
      if (round > 0) {
        results[tenant.label].push(result);
      }
    }
  }
  return results;
}

function scriptFigures(repoRoot: string, rounds: RoundResult[]): ScriptFigures {
  const files = firstPageScripts(builtConsoleFolder(repoRoot));
  const loaded = new Set<string>();
  for (const round of rounds) {
    for (const request of round.requests.filter((r) => r.kind === 'script')) {
      loaded.add(request.path.replace(/^\/console\//, ''));
    }
  }
  return {
    files,
    gzipKb: files.reduce((sum, f) => sum + f.gzipBytes, 0) / 1024,
    loadedByPage: [...loaded].sort(),
  };
}

async function main(cleanup: Cleanup): Promise<{ report: ConsoleBenchReport; file: string }> {
  const started = Date.now();
  const bench = loadBenchSettings();
  const settings = consoleSettings(bench.repoRoot);
  if (!existsSync(join(builtConsoleFolder(bench.repoRoot), 'index.html'))) {
    throw new Error('no built console in dist/console: run npm run build first');
  }
  const { commit, dirty } = gitCommit(bench.repoRoot);
  log(`console; commit ${commit.slice(0, 12)}${dirty ? ' (uncommitted changes)' : ''}`);
  const api = await startApi(bench, settings.days, cleanup);
  const tenants: SeededTenant[] = [];
  for (const plan of [settings.large, settings.small, settings.noise]) {
    cleanup.check();
    tenants.push(
      await seedTenant(api.databaseUrl, api.apiUrl, { ...plan, days: settings.days }, log),
    );
  }
  await analyseHistory(api.databaseUrl);
  const browser = await launchChromium();
  cleanup.add('browser', () => browser.close());
  const measured = tenants.slice(0, 2);
  const loadAtStart = loadavg();
  const rounds = await measureRounds(browser, api, measured, settings.rounds, cleanup);
  const figures = measured.map((tenant) => tenantFigures(tenant, rounds[tenant.label]));
  const scripts = scriptFigures(bench.repoRoot, Object.values(rounds).flat());
  const usable = figures[0].usableMs.median;
  const report: ConsoleBenchReport = {
    scenario:
      `the console's endpoints page opened through a portal link: ${settings.large.endpoints} endpoints ` +
      `and ${settings.large.attempts} attempts over ${settings.days} days, against ` +
      `${settings.small.endpoints} endpoints and ${settings.small.attempts} attempts`,
    usableMeans:
      `the table "${TABLE_NAME}" shows its first page of rows with every row's success rate ` +
      'and last attempt filled in (no cell still "…"), and the browser has run the animation ' +
      'frame that paints it; ms from the navigation start (the portal link opened in a fresh ' +
      'browser context: HTML, scripts, the link exchange, and the list with the health of each endpoint).',
    date: new Date(started).toISOString(),
    durationSeconds: (Date.now() - started) / 1000,
    commit,
    commitDirty: dirty,
    machine: thisMachine(),
    loadAverage: { beforeRounds: loadAtStart, afterRounds: loadavg() },
    chromium: `Chromium ${browser.version()}`,
    settings: {
      ...settings,
      resultsFile: relative(bench.repoRoot, settings.resultsFile),
      apiLogLevel: api.logLevel,
      postgres: bench.postgresUrl.replace(/\/\/[^@/]*@/, '//'),
    },
    partitions: api.partitions,
    tenants: figures,
    scripts,
    targets: [
      {
        name: `endpoints page usable, ${settings.large.endpoints} endpoints (ms, median)`,
        target: `<= ${CONSOLE_TARGETS.usableMs}`,
        measured: Math.round(usable),
        met: usable <= CONSOLE_TARGETS.usableMs,
      },
      {
        name: 'first page JavaScript (KB gzipped)',
        target: `<= ${CONSOLE_TARGETS.firstPageJsKb}`,
        measured: Number(scripts.gzipKb.toFixed(1)),
        met: scripts.gzipKb <= CONSOLE_TARGETS.firstPageJsKb,
      },
    ],
    rounds,
  };
  return { report, file: settings.resultsFile };
}

const cleanup = new Cleanup(log);
cleanup.onSignals(['SIGINT', 'SIGTERM']);
main(cleanup)
  .then(async ({ report, file }) => {
    await cleanup.run();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${formatConsoleReport(report)}\n`);
    log(`figures written to ${file}`);
  })
  .catch(async (error: unknown) => {
    if (!cleanup.interrupted) {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    await cleanup.run();
    process.exitCode = 1;
  });
