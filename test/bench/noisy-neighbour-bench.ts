/**
 * `npm run bench:noisy-neighbour` (issue 19, ADR 0032): the noisy-neighbour scenario
 * (scenarios/noisy-neighbour.ts) on its own, with the bench's stack, receiver and engine
 * processes. Figures to stdout and to test-results/bench-noisy-neighbour.json (scenario,
 * machine, settings, commit). See test/bench/README.md for the BENCH_NOISY_* settings.
 */
import 'reflect-metadata';
import { connect } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { contentionOf, formatScenario, ScenarioReport } from './bench-report';
import { loadBenchSettings, ScenarioName } from './bench-settings';
import { removeStaleLeftovers } from './bench-stack';
import { Cleanup } from './cleanup';
import { gitCommit, thisMachine } from './run-identity';
import { noisyNeighbour } from './scenarios/noisy-neighbour';

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** Not (yet) one of `npm run bench`'s scenarios (bench-settings.ts), so named here. */
const SCENARIO = 'noisy-neighbour' as unknown as ScenarioName;

async function main(cleanup: Cleanup): Promise<string> {
  const settings = loadBenchSettings();
  const started = Date.now();
  const { commit, dirty } = gitCommit(settings.repoRoot);
  log(`noisy-neighbour; commit ${commit.slice(0, 12)}${dirty ? ' (uncommitted changes)' : ''}`);
  const nc = await connect({ servers: settings.natsUrl, name: 'svc-bench' });
  cleanup.add('NATS connection', () => nc.close());
  for (const removed of await removeStaleLeftovers(settings.postgresUrl, nc)) {
    log(`removed a leftover of a killed run: ${removed}`);
  }
  const scope = cleanup.child('scenario noisy-neighbour');
  const outcome = await noisyNeighbour({
    name: SCENARIO,
    settings,
    nc,
    cleanup: scope,
    encryptionKey: randomBytes(32).toString('base64'),
    log: (message) => log(`[noisy-neighbour] ${message}`),
  });
  await scope.run();
  const report: ScenarioReport = {
    scenario: SCENARIO,
    description: outcome.description,
    date: new Date(started).toISOString(),
    durationSeconds: (Date.now() - started) / 1000,
    commit,
    commitDirty: dirty,
    machine: thisMachine(),
    settings: {
      bodyBytes: settings.bodyBytes,
      concurrency: settings.concurrency,
      perEndpoint: settings.perEndpoint,
      warmupEvents: settings.warmupEvents,
      answerDelayMs: settings.answerDelayMs,
      timeoutSeconds: settings.timeoutSeconds,
      engineNodeArgs: settings.engineNodeArgs,
      // The engine settings that pass through from the environment (README of test/bench).
      engineEnvironment: Object.fromEntries(
        Object.entries(process.env).filter(
          ([name]) =>
            /^(DELIVERY_|DATABASE_POOL_SIZE$|INTAKE_|TENANT_WEIGHTS$)/.test(name) &&
            name !== 'DELIVERY_PORT',
        ),
      ),
      ...outcome.settings,
    },
    figures: outcome.figures,
    targets: outcome.targets,
    engines: outcome.engines,
    runs: outcome.runs,
    contention: contentionOf(outcome.runs),
  };
  const file = join(dirname(settings.resultsFile), 'bench-noisy-neighbour.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${formatScenario(report)}\n`);
  return relative(settings.repoRoot, file);
}

const cleanup = new Cleanup(log);
cleanup.onSignals(['SIGINT', 'SIGTERM']);
main(cleanup)
  .then(async (file) => {
    await cleanup.run();
    log(`figures written to ${file}`);
  })
  .catch(async (error: unknown) => {
    if (!cleanup.interrupted) {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    await cleanup.run();
    process.exitCode = 1;
  });
