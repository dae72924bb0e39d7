/**
 * `npm run bench` (issue 3, part 11): the delivery engine's throughput with every attempt durable
 * in PostgreSQL, beside the raw HTTPS ceiling of the same receiver measured in the same run.
 * See test/bench/README.md for what it does and the BENCH_* knobs.
 */
import 'reflect-metadata';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { SubjectScheme } from '@svc/contracts';
import { EventPublisher } from '@svc/event-publisher';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { BenchEvents } from './bench-events';
import { BenchReport, formatReport, RoundResult, summarise } from './bench-report';
import { EngineRunContext, measureEngineRun, publishBurst, publishPaced } from './bench-runs';
import { loadBenchSettings } from './bench-settings';
import {
  createDatabase,
  createTenantWithKey,
  deleteStreams,
  dropDatabase,
  newNamespace,
  registerEndpoints,
  removeStaleLeftovers,
} from './bench-stack';
import { Cleanup } from './cleanup';
import { DeliveryLogProbe } from './delivery-log-probe';
import { appEnvironment, EngineProcess } from './engine-process';
import { benchCpuGroups, CpuMeter } from './process-stats';
import { RawClient } from './raw-ceiling';
import { ReceiverProcess } from './receiver-process';
import { freePort, startBuiltApp } from './service-process';
import { MetricsDelta } from './stats';

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function main(cleanup: Cleanup): Promise<BenchReport> {
  const settings = loadBenchSettings();
  const startedAt = new Date().toISOString();
  const ns = newNamespace();
  log(
    `run ${ns.tag}: database ${ns.database}, streams ${ns.eventsStream} and ${ns.deadLetterStream}`,
  );

  const nc: NatsConnection = await connect({ servers: settings.natsUrl, name: 'svc-bench' });
  cleanup.add('NATS connection', () => nc.close());
  for (const removed of await removeStaleLeftovers(settings.postgresUrl, nc)) {
    log(`removed a leftover of a killed run: ${removed}`);
  }

  cleanup.add('database', () => dropDatabase(settings.postgresUrl, ns.database));
  const databaseUrl = await createDatabase(settings.postgresUrl, ns);
  cleanup.add('streams', () => deleteStreams(nc, ns));

  const receiver = await ReceiverProcess.start(settings.endpoints);
  cleanup.add('receiver', () => receiver.stop());
  log(`receiver (pid ${receiver.pid}) listening on ${receiver.ports.length} ports`);

  const env = appEnvironment(settings, ns, databaseUrl, randomBytes(32).toString('base64'));
  const { tenantId, key } = await createTenantWithKey(databaseUrl);
  const apiPort = await freePort();
  const api = await startBuiltApp('api', apiPort, env, settings.repoRoot, cleanup);
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const endpoints = await registerEndpoints(apiUrl, key, receiver.ports);
  await api.stop();
  log(`registered ${endpoints.length} endpoints through the API (tenant ${tenantId})`);

  const events = new BenchEvents(tenantId, settings.bodyBytes);
  const probe = await DeliveryLogProbe.open(databaseUrl);
  cleanup.add('probe', () => probe.close());
  const raw = new RawClient(endpoints, events, {
    caFile: resolve(settings.repoRoot, 'test/fixtures/tls/ca.pem'),
    connectionsPerOrigin: settings.perEndpoint,
  });
  cleanup.add('raw client', () => raw.close());
  const publisher = new EventPublisher(nc, new SubjectScheme(ns.subjectRoot));

  const deliveries = settings.events * endpoints.length;
  const rounds: RoundResult[] = [];
  let engine: EngineProcess | undefined;
  let context: EngineRunContext | undefined;
  let rssAfterWarmupMiB = NaN;
  for (let round = 1; round <= settings.rounds; round += 1) {
    cleanup.check();
    receiver.phase(`raw-${round}`);
    if (round === 1) {
      await raw.run(settings.warmupEvents * endpoints.length, settings.concurrency);
    }
    log(`raw ceiling #${round}: ${deliveries} POSTs, ${settings.concurrency} in flight`);
    const rawCpu = new CpuMeter(benchCpuGroups({ receiver: receiver.pid, engine: engine?.pid }));
    const rawRun = await raw.run(deliveries, settings.concurrency);
    cleanup.check();
    if (rawRun.failures > 0) {
      throw new Error(
        `raw ceiling #${round}: ${rawRun.failures} POSTs failed; the receiver is not sound`,
      );
    }
    const rawResult = {
      ...rawRun,
      deliveriesPerSecond: rawRun.requests / (rawRun.elapsedMs / 1000),
      cpuCores: rawCpu.coresUsed(),
    };
    log(`raw ceiling #${round}: ${Math.round(rawResult.deliveriesPerSecond)}/s`);

    if (!engine || !context) {
      engine = await EngineProcess.start(settings, env, ns, nc, (started) =>
        cleanup.add('engine', async () => {
          await started.stop();
        }),
      );
      log(`engine (pid ${engine.pid}) consuming`);
      context = {
        engine,
        receiver,
        probe,
        publisher,
        events,
        endpoints: endpoints.length,
        cpuGroups: benchCpuGroups({ receiver: receiver.pid, engine: engine.pid }),
        timeoutMs: settings.timeoutSeconds * 1000,
      };
      if (settings.warmupEvents > 0) {
        const warm = await measureEngineRun(context, 'warm-up', settings.warmupEvents, (count) =>
          publishBurst(publisher, events, count),
        );
        log(
          `engine warm-up: ${warm.deliveries} deliveries, ${Math.round(warm.deliveriesPerSecond)}/s`,
        );
      }
      rssAfterWarmupMiB = engine.memory().rssMiB;
    }
    cleanup.check();
    log(`engine #${round}: ${settings.events} events x ${endpoints.length} endpoints`);
    const engineRun = await measureEngineRun(context, `engine-${round}`, settings.events, (count) =>
      publishBurst(publisher, events, count),
    );
    log(`engine #${round}: ${Math.round(engineRun.deliveriesPerSecond)}/s`);
    rounds.push({
      raw: rawResult,
      engine: engineRun,
      ratio: engineRun.deliveriesPerSecond / rawResult.deliveriesPerSecond,
    });
  }

  let paced: BenchReport['paced'] = null;
  cleanup.check();
  if (settings.pacedSeconds > 0 && context) {
    const summary = summarise(rounds);
    const eventsPerSecond =
      (summary.engineDeliveriesPerSecond * settings.pacedLoad) / endpoints.length;
    const count = Math.max(1, Math.round(eventsPerSecond * settings.pacedSeconds));
    log(`paced: ${count} events at ${eventsPerSecond.toFixed(1)}/s`);
    const run = await measureEngineRun(context, 'paced', count, (n) =>
      publishPaced(publisher, events, n, eventsPerSecond),
    );
    paced = { ...run, eventsPerSecond };
  }

  const memory = engine!.memory();
  const heap = new MetricsDelta([], await engine!.metrics());
  const engineExitCode = (await engine!.stop()) ?? null;
  return {
    startedAt,
    machine: {
      cpus: availableParallelism(),
      node: process.versions.node,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
    },
    settings: {
      events: settings.events,
      warmupEvents: settings.warmupEvents,
      endpoints: settings.endpoints,
      concurrency: settings.concurrency,
      perEndpoint: settings.perEndpoint,
      bodyBytes: settings.bodyBytes,
      rounds: settings.rounds,
      pacedSeconds: settings.pacedSeconds,
      pacedLoad: settings.pacedLoad,
      timeoutSeconds: settings.timeoutSeconds,
      engineNodeArgs: settings.engineNodeArgs,
      natsUrl: settings.natsUrl,
      postgresUrl: settings.postgresUrl.replace(/\/\/[^@/]*@/, '//'),
    },
    rounds,
    paced,
    engineMemory: {
      peakRssMiB: memory.peakRssMiB,
      rssAfterWarmupMiB,
      rssAtEndMiB: memory.rssMiB,
      heapUsedAtEndMiB: heap.latest('nodejs_heap_size_used_bytes') / 2 ** 20,
      heapTotalAtEndMiB: heap.latest('nodejs_heap_size_total_bytes') / 2 ** 20,
    },
    engineExitCode,
    summary: summarise(rounds),
  };
}

const cleanup = new Cleanup(log);
cleanup.onSignals(['SIGINT', 'SIGTERM']);
main(cleanup)
  .then(async (report) => {
    await cleanup.run();
    const settings = loadBenchSettings();
    mkdirSync(dirname(settings.resultsFile), { recursive: true });
    writeFileSync(settings.resultsFile, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${formatReport(report)}\n`);
    log(`figures written to ${settings.resultsFile}`);
  })
  .catch(async (error: unknown) => {
    if (!cleanup.interrupted) {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    await cleanup.run();
    process.exitCode = 1;
  });
