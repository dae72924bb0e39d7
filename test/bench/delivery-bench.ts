/**
 * `npm run bench` (issue 3, part 11; scenarios: issue 14): the delivery engine's throughput and
 * latency with every attempt durable in PostgreSQL, scenario by scenario (BENCH_SCENARIOS), beside
 * a raw HTTPS ceiling or a baseline measured in the same run. See test/bench/README.md for what
 * each scenario does and the BENCH_* knobs.
 */
import 'reflect-metadata';
import { connect } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import {
  contentionOf,
  formatScenario,
  formatSummary,
  ScenarioReport,
  TargetCheck,
} from './bench-report';
import { BenchSettings, loadBenchSettings, ScenarioName } from './bench-settings';
import { removeStaleLeftovers } from './bench-stack';
import { Cleanup } from './cleanup';
import { gitCommit, Machine, thisMachine } from './run-identity';
import { backlog } from './scenarios/backlog';
import { cost } from './scenarios/cost';
import { fanOut } from './scenarios/fan-out';
import { fifo } from './scenarios/fifo';
import { hotEndpoint } from './scenarios/hot-endpoint';
import { mixed } from './scenarios/mixed';
import { replicas } from './scenarios/replicas';
import { ScenarioKit, ScenarioOutcome } from './scenarios/scenario-kit';
import { steady } from './scenarios/steady';

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

const RUNNERS: Record<ScenarioName, (kit: ScenarioKit) => Promise<ScenarioOutcome>> = {
  steady,
  'fan-out': fanOut,
  mixed,
  backlog,
  'hot-endpoint': hotEndpoint,
  replicas,
  cost,
  fifo,
};

/** Every scenario's figures in one file, as `bench-<scenario>.json` each hold one. */
interface CombinedReport {
  date: string;
  durationSeconds: number;
  commit: string;
  commitDirty: boolean;
  machine: Machine;
  command: string;
  settings: Record<string, unknown>;
  scenarios: ScenarioReport[];
  /** Every target of every scenario, with the scenario's name. */
  targets: (TargetCheck & { scenario: ScenarioName })[];
  failed: { scenario: ScenarioName; error: string }[];
}

function commonSettings(settings: BenchSettings): Record<string, unknown> {
  return {
    scenarios: settings.scenarios,
    events: settings.events,
    warmupEvents: settings.warmupEvents,
    endpoints: settings.endpoints,
    concurrency: settings.concurrency,
    perEndpoint: settings.perEndpoint,
    bodyBytes: settings.bodyBytes,
    rounds: settings.rounds,
    pairedRounds: settings.pairedRounds,
    answerDelayMs: settings.answerDelayMs,
    pacedSeconds: settings.pacedSeconds,
    pacedLoad: settings.pacedLoad,
    timeoutSeconds: settings.timeoutSeconds,
    engineNodeArgs: settings.engineNodeArgs,
    // The engine settings that pass through from the environment (README of test/bench).
    engineEnvironment: Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => /^(DELIVERY_|DATABASE_POOL_SIZE$)/.test(name) && name !== 'DELIVERY_PORT',
      ),
    ),
    natsUrl: settings.natsUrl,
    postgresUrl: settings.postgresUrl.replace(/\/\/[^@/]*@/, '//'),
  };
}

const resultsFileOf = (settings: BenchSettings, scenario: ScenarioName) =>
  join(dirname(settings.resultsFile), `bench-${scenario}.json`);

function write(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

async function main(cleanup: Cleanup): Promise<CombinedReport> {
  const settings = loadBenchSettings();
  const started = Date.now();
  const { commit, dirty } = gitCommit(settings.repoRoot);
  const machine = thisMachine();
  log(
    `scenarios: ${settings.scenarios.join(', ')}; commit ${commit.slice(0, 12)}${dirty ? ' (uncommitted changes)' : ''}`,
  );
  const nc = await connect({ servers: settings.natsUrl, name: 'svc-bench' });
  cleanup.add('NATS connection', () => nc.close());
  for (const removed of await removeStaleLeftovers(settings.postgresUrl, nc)) {
    log(`removed a leftover of a killed run: ${removed}`);
  }
  const common = commonSettings(settings);
  const reports: ScenarioReport[] = [];
  const failed: CombinedReport['failed'] = [];
  for (const name of settings.scenarios) {
    cleanup.check();
    const scenarioStarted = Date.now();
    const scope = cleanup.child(`scenario ${name}`);
    const kit: ScenarioKit = {
      name,
      settings,
      nc,
      cleanup: scope,
      encryptionKey: randomBytes(32).toString('base64'),
      log: (message) => log(`[${name}] ${message}`),
    };
    log(`[${name}] starting`);
    try {
      const outcome = await RUNNERS[name](kit);
      await scope.run();
      const report: ScenarioReport = {
        scenario: name,
        description: outcome.description,
        date: new Date(scenarioStarted).toISOString(),
        durationSeconds: (Date.now() - scenarioStarted) / 1000,
        commit,
        commitDirty: dirty,
        machine,
        settings: { ...common, ...outcome.settings },
        figures: outcome.figures,
        targets: outcome.targets,
        engines: outcome.engines,
        runs: outcome.runs,
        contention: contentionOf(outcome.runs),
      };
      reports.push(report);
      const file = resultsFileOf(settings, name);
      write(file, report);
      process.stdout.write(`${formatScenario(report)}\n\n`);
      log(
        `[${name}] done in ${report.durationSeconds.toFixed(0)} s; figures in ${relative(settings.repoRoot, file)}`,
      );
    } catch (error) {
      await scope.run();
      if (cleanup.interrupted) {
        throw error;
      }
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`[${name}] failed: ${message}`);
      failed.push({ scenario: name, error: message });
    }
  }
  return {
    date: new Date(started).toISOString(),
    durationSeconds: (Date.now() - started) / 1000,
    commit,
    commitDirty: dirty,
    machine,
    command: `BENCH_SCENARIOS=${settings.scenarios.join(',')} npm run bench`,
    settings: common,
    scenarios: reports,
    targets: reports.flatMap((report) =>
      report.targets.map((target) => ({ ...target, scenario: report.scenario })),
    ),
    failed,
  };
}

const cleanup = new Cleanup(log);
cleanup.onSignals(['SIGINT', 'SIGTERM']);
main(cleanup)
  .then(async (report) => {
    await cleanup.run();
    const settings = loadBenchSettings();
    write(settings.resultsFile, report);
    process.stdout.write(`${formatSummary(report.scenarios)}\n`);
    for (const failure of report.failed) {
      process.stdout.write(`FAILED ${failure.scenario}: ${failure.error.split('\n')[0]}\n`);
    }
    log(`figures written to ${relative(settings.repoRoot, settings.resultsFile)}`);
    if (report.failed.length > 0) {
      process.exitCode = 1;
    }
  })
  .catch(async (error: unknown) => {
    if (!cleanup.interrupted) {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    await cleanup.run();
    process.exitCode = 1;
  });
