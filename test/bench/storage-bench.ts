/**
 * `npm run bench:storage` (issue 12, ADR 0023): what delivery data costs in PostgreSQL and that
 * time partitions keep it bounded. Three parts, with the real built engine, the bench receiver
 * and the machine's NATS and PostgreSQL (loopback only):
 *   1. bytes per delivery by table, after a burst that all succeeds at once;
 *   2. total storage over "simulated days": retention and partitions shortened to minutes, a
 *      steady load, samples of the size, the verdict that it stops growing after one retention;
 *   3. the time of each partition drop under that load and the publish-to-receipt latency in the
 *      windows with and without a drop.
 * See test/bench/README.md for the BENCH_STORAGE_* settings.
 */
import 'reflect-metadata';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { SubjectScheme } from '@svc/contracts';
import { DELIVERY_DATA_TABLES, RetentionSettings } from '@svc/database';
import { EventPublisher } from '@svc/event-publisher';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BenchEvents } from './bench-events';
import { measureEngineRun, publishBurst, publishPaced } from './bench-runs';
import {
  BenchSettings,
  loadBenchSettings,
  loadStorageBenchSettings,
  StorageBenchSettings,
} from './bench-settings';
import {
  BenchEndpoint,
  BenchNamespace,
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
import { benchCpuGroups } from './process-stats';
import { ReceiverProcess } from './receiver-process';
import { gitCommit, thisMachine } from './run-identity';
import { freePort, startBuiltApp } from './service-process';
import { MetricsDelta } from './stats';
import { StorageMaintainer } from './storage-maintainer';
import { STORAGE_TABLES, StorageProbe } from './storage-probe';
import {
  BytesPerDelivery,
  flatness,
  formatStorageReport,
  latencyByDrops,
  MaintenanceTurn,
  spread,
  StorageBenchReport,
  StorageSample,
  SteadyRun,
} from './storage-report';

const log = (message: string) => process.stderr.write(`bench:storage: ${message}\n`);

/** The bench takes the maintenance lock this long before a boundary, so the engine's turn skips. */
const LOCK_LEAD_MS = 3000;
/** ... and takes its turn this long after the boundary (partitions expire on the boundary). */
const AFTER_BOUNDARY_MS = 50;
const LOCK_POLL_MS = 20;
/** After the last publish, every delivery must reach the receiver within this. */
const DRAIN_TIMEOUT_MS = 120_000;

interface Shared {
  bench: BenchSettings;
  storage: StorageBenchSettings;
  nc: NatsConnection;
  receiver: ReceiverProcess;
  encryptionKey: string;
  cleanup: Cleanup;
}

/** A database and streams of their own, a tenant, and one endpoint per receiver port. */
interface RunStack {
  ns: BenchNamespace;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  tenantId: string;
  endpoints: BenchEndpoint[];
  /** Drops the database and the streams now (the cleanup would at the end). */
  remove(): Promise<void>;
}

async function prepareRun(shared: Shared, label: string): Promise<RunStack> {
  const { bench, nc, cleanup } = shared;
  const ns = newNamespace();
  log(`${label}: database ${ns.database}, streams ${ns.eventsStream} and ${ns.deadLetterStream}`);
  cleanup.add(`database (${label})`, () => dropDatabase(bench.postgresUrl, ns.database));
  const databaseUrl = await createDatabase(bench.postgresUrl, ns);
  cleanup.add(`streams (${label})`, () => deleteStreams(nc, ns));
  const env = appEnvironment(bench, ns, databaseUrl, shared.encryptionKey);
  const { tenantId, key } = await createTenantWithKey(databaseUrl);
  const apiPort = await freePort();
  const api = await startBuiltApp('api', apiPort, env, bench.repoRoot, cleanup);
  const endpoints = await registerEndpoints(
    `http://127.0.0.1:${apiPort}`,
    key,
    shared.receiver.ports,
  );
  await api.stop();
  return {
    ns,
    databaseUrl,
    env,
    tenantId,
    endpoints,
    remove: async () => {
      await deleteStreams(nc, ns);
      await dropDatabase(bench.postgresUrl, ns.database);
    },
  };
}

async function startEngine(
  shared: Shared,
  run: RunStack,
  label: string,
  retention: { retention: string; width: string },
): Promise<EngineProcess> {
  const env = {
    ...run.env,
    DELIVERY_DATA_RETENTION: retention.retention,
    DELIVERY_DATA_PARTITION_WIDTH: retention.width,
  };
  const engine = await EngineProcess.start(shared.bench, env, run.ns, shared.nc, (started) =>
    shared.cleanup.add(`engine (${label})`, async () => {
      await started.stop();
    }),
  );
  log(`${label}: engine (pid ${engine.pid}) consuming`);
  return engine;
}

/** Part 1: a burst through the engine, then each table's growth divided by the deliveries. */
async function bytesPerDelivery(shared: Shared): Promise<BytesPerDelivery> {
  const { storage, receiver, cleanup } = shared;
  const run = await prepareRun(shared, 'bytes');
  const engine = await startEngine(shared, run, 'bytes', { retention: '30d', width: '1d' });
  const probe = await DeliveryLogProbe.open(run.databaseUrl);
  cleanup.add('delivery log probe', () => probe.close());
  const storageProbe = await StorageProbe.open(run.databaseUrl);
  cleanup.add('storage probe (bytes)', () => storageProbe.close());

  await storageProbe.vacuumAnalyze();
  const sizesBefore = await storageProbe.sizes();
  const rowsBefore = await storageProbe.rowCounts();
  const events = new BenchEvents(run.tenantId, storage.bodyBytes);
  const publisher = new EventPublisher(shared.nc, new SubjectScheme(run.ns.subjectRoot));
  const deliveries = storage.events * run.endpoints.length;
  log(`bytes: ${storage.events} events x ${run.endpoints.length} endpoints at once`);
  const result = await measureEngineRun(
    {
      engines: [engine],
      receiver,
      probe,
      publisher,
      events,
      tenantId: run.tenantId,
      deliveriesPerEvent: run.endpoints.length,
      cpuGroups: benchCpuGroups({ receiver: receiver.pid, engine: engine.pid }),
      timeoutMs: shared.bench.timeoutSeconds * 1000,
    },
    'bytes',
    storage.events,
    (count) => publishBurst(publisher, events, count),
  );
  // Nothing writes while the sizes are read.
  const engineExitCode = (await engine.stop()) ?? null;
  await storageProbe.vacuumAnalyze();
  const sizesAfter = await storageProbe.sizes();
  const rowsAfter = await storageProbe.rowCounts();
  const tables = STORAGE_TABLES.map((table) => {
    const bytes = sizesAfter[table].bytes - sizesBefore[table].bytes;
    const rows = rowsAfter[table] - rowsBefore[table];
    return {
      table,
      bytes,
      rows,
      bytesPerDelivery: bytes / deliveries,
      rowsPerDelivery: rows / deliveries,
    };
  });
  const totalBytes = tables.reduce((total, t) => total + t.bytes, 0);
  await storageProbe.close();
  await probe.close();
  await run.remove();
  return {
    deliveries,
    attempts: result.log.attempts,
    failedAttempts: result.log.failedAttempts,
    deliveriesPerSecond: result.deliveriesPerSecond,
    tables,
    totalBytes,
    bytesPerDelivery: totalBytes / deliveries,
    baselineBytes: STORAGE_TABLES.reduce((total, t) => total + sizesBefore[t].bytes, 0),
    engineExitCode,
  };
}

const sleepUntil = (at: number) => sleep(Math.max(0, at - Date.now()));
const alignDown = (time: number, width: number) => Math.floor(time / width) * width;

async function sampleStorage(
  probe: StorageProbe,
  load: { start: number; end: number },
  everyMs: number,
  cleanup: Cleanup,
): Promise<StorageSample[]> {
  const samples: StorageSample[] = [];
  for (let at = load.start; at <= load.end; at += everyMs) {
    await sleepUntil(at);
    cleanup.check();
    const tables = await probe.sizes();
    const sample = {
      seconds: (at - load.start) / 1000,
      at: new Date().toISOString(),
      totalBytes: Object.values(tables).reduce((total, t) => total + t.bytes, 0),
      tables,
    };
    samples.push(sample);
    log(
      `  ${sample.seconds} s: ${(sample.totalBytes / 2 ** 20).toFixed(1)} MiB, ` +
        `${tables.deliveries.partitions} partitions of deliveries`,
    );
  }
  return samples;
}

/** Engine sessions waiting for a lock, polled until stopped. */
function watchLocks(probe: StorageProbe): { stop(): Promise<MaintenanceTurn['lockWaits']> } {
  const seen = {
    waiting: 0,
    longestMs: 0,
    onTable: 0,
    onTableLongestMs: 0,
    polls: 0,
    pollsWithWaiters: 0,
  };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const now = await probe.lockWaiters();
      seen.polls += 1;
      seen.pollsWithWaiters += now.waiting > 0 ? 1 : 0;
      seen.waiting = Math.max(seen.waiting, now.waiting);
      seen.longestMs = Math.max(seen.longestMs, now.longestMs);
      seen.onTable = Math.max(seen.onTable, now.onTable);
      seen.onTableLongestMs = Math.max(seen.onTableLongestMs, now.onTableLongestMs);
      await sleep(LOCK_POLL_MS);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return seen;
    },
  };
}

/** Rows of delivery data with keys before the cutoff each table has at `at`. */
async function rowsBeforeCutoffs(
  probe: StorageProbe,
  cutoffs: Record<string, Date>,
): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  for (const table of DELIVERY_DATA_TABLES) {
    rows[table] = await probe.rowsBefore(table, cutoffs[table]);
  }
  return rows;
}

/**
 * At every partition boundary of the load: hold the lock a little before (the engine's keeper
 * skips), count the rows about to expire, then make the next partition and drop the expired
 * ones, each timed, while engine sessions waiting for a lock are polled; count again after.
 */
async function maintenanceTurns(
  maintainer: StorageMaintainer,
  probes: { rows: StorageProbe; locks: StorageProbe },
  end: number,
  cleanup: Cleanup,
): Promise<MaintenanceTurn[]> {
  const { retentionMs, partitionWidthMs: width } = maintainer.settings;
  const turns: MaintenanceTurn[] = [];
  for (;;) {
    const boundary = Math.ceil((Date.now() + LOCK_LEAD_MS) / width) * width;
    if (boundary > end) {
      return turns;
    }
    await sleepUntil(boundary - LOCK_LEAD_MS);
    cleanup.check();
    await maintainer.hold();
    try {
      // What planPartitions drops at the turn's moment: partitions ending by the cutoff.
      const at = boundary + AFTER_BOUNDARY_MS;
      const cutoffs: Record<string, Date> = {};
      for (const table of DELIVERY_DATA_TABLES) {
        const grace = table === 'inbound_events' ? width : 0;
        cutoffs[table] = new Date(alignDown(at - retentionMs - grace, width));
      }
      const before = await rowsBeforeCutoffs(probes.rows, cutoffs);
      await sleepUntil(at);
      const watch = watchLocks(probes.locks);
      const create = await maintainer.turn(false);
      const drop = await maintainer.turn(true);
      const endedAt = Date.now();
      const lockWaits = await watch.stop();
      const after = await rowsBeforeCutoffs(probes.rows, cutoffs);
      turns.push({
        boundary: new Date(boundary).toISOString(),
        created: create.report.created,
        dropped: drop.report.dropped,
        createMs: create.ms,
        dropMs: drop.ms,
        startedAt: create.startedAt,
        endedAt,
        cutoffs: Object.fromEntries(
          Object.entries(cutoffs).map(([table, cutoff]) => [table, cutoff.toISOString()]),
        ),
        rowsBeforeCutoffBefore: before,
        rowsBeforeCutoffAfter: after,
        lockWaits,
      });
      log(
        `  turn at ${new Date(boundary).toISOString().slice(11, 19)}: created ${create.report.created.length} ` +
          `in ${create.ms.toFixed(0)} ms, dropped ${drop.report.dropped.length} in ${drop.ms.toFixed(0)} ms`,
      );
    } finally {
      await maintainer.release();
    }
  }
}

/** Parts 2 and 3: the steady load with minute-wide partitions. */
async function steadyRun(shared: Shared): Promise<SteadyRun> {
  const { storage, receiver, cleanup } = shared;
  const run = await prepareRun(shared, 'steady');
  const retention: RetentionSettings = {
    retentionMs: storage.retentionMinutes * 60_000,
    partitionWidthMs: storage.partitionMinutes * 60_000,
  };
  const maintainer = await StorageMaintainer.open(run.databaseUrl, retention);
  cleanup.add('maintainer', () => maintainer.close());
  const legacyPartitionsDropped = await maintainer.dropEmptyLegacyPartitions();
  await maintainer.turn(false);
  const engine = await startEngine(shared, run, 'steady', {
    retention: `${storage.retentionMinutes}m`,
    width: `${storage.partitionMinutes}m`,
  });
  const probes = {
    sizes: await StorageProbe.open(run.databaseUrl),
    rows: await StorageProbe.open(run.databaseUrl),
    locks: await StorageProbe.open(run.databaseUrl),
  };
  cleanup.add('storage probes', () =>
    Promise.all(Object.values(probes).map((probe) => probe.close())),
  );

  const events = new BenchEvents(run.tenantId, storage.bodyBytes);
  const publisher = new EventPublisher(shared.nc, new SubjectScheme(run.ns.subjectRoot));
  const count = storage.rate * storage.minutes * 60;
  const expected = count * run.endpoints.length;
  const windowMs = storage.windowSeconds * 1000;
  receiver.phase('steady', windowMs);
  const start = Date.now();
  const load = { start, end: start + storage.minutes * 60_000 };
  log(
    `steady: ${storage.rate} events/s x ${run.endpoints.length} endpoints for ${storage.minutes} min ` +
      `(${count} events), until ${new Date(load.end).toISOString()}`,
  );
  const [publishSeconds, samples, turns] = await Promise.all([
    publishPaced(publisher, events, count, storage.rate).then(() => (Date.now() - start) / 1000),
    sampleStorage(probes.sizes, load, storage.sampleSeconds * 1000, cleanup),
    maintenanceTurns(maintainer, probes, load.end, cleanup),
  ]);
  log(`steady: published in ${publishSeconds.toFixed(1)} s; waiting for every delivery`);
  let deliveriesReceived: number;
  try {
    await receiver.reached(expected, DRAIN_TIMEOUT_MS);
    deliveriesReceived = expected;
  } catch (error) {
    deliveriesReceived = (await receiver.stats()).count;
    log(`steady: only ${deliveriesReceived} of ${expected} arrived (${(error as Error).message})`);
  }
  const stats = await receiver.stats();
  const metrics = new MetricsDelta([], await engine.metrics());
  const engineExitCode = (await engine.stop()) ?? null;

  const dropping = turns.filter((turn) => turn.dropped.length > 0);
  const sumRows = (rows: Record<string, number>) => Object.values(rows).reduce((a, b) => a + b, 0);
  return {
    eventsPublished: count,
    deliveriesExpected: expected,
    deliveriesReceived,
    loadStartedAt: new Date(start).toISOString(),
    publishSeconds,
    samples,
    flat: flatness(samples, storage),
    legacyPartitionsDropped,
    turns,
    drops: {
      count: dropping.length,
      partitionsDropped: dropping.reduce((total, turn) => total + turn.dropped.length, 0),
      dropMs: spread(dropping.map((turn) => turn.dropMs)),
      createMs: spread(turns.map((turn) => turn.createMs)),
      rowsLeftBeforeCutoff: turns.reduce(
        (total, turn) => total + sumRows(turn.rowsBeforeCutoffAfter),
        0,
      ),
      maxEngineSessionsWaiting: Math.max(0, ...turns.map((turn) => turn.lockWaits.waiting)),
      longestEngineLockWaitMs: Math.max(0, ...turns.map((turn) => turn.lockWaits.longestMs)),
      maxEngineSessionsWaitingOnTable: Math.max(0, ...turns.map((turn) => turn.lockWaits.onTable)),
      longestEngineTableLockWaitMs: Math.max(
        0,
        ...turns.map((turn) => turn.lockWaits.onTableLongestMs),
      ),
    },
    latency: {
      windowSeconds: storage.windowSeconds,
      ...latencyByDrops(stats.windows ?? [], windowMs, load, turns),
      overall: {
        p50: stats.latencyMs.p50,
        p99: stats.latencyMs.p99,
        max: stats.latencyMs.max,
      },
    },
    engineKeeper: {
      ran: metrics.latest('svc_retention_runs_total', { result: 'ran' }),
      skipped: metrics.latest('svc_retention_runs_total', { result: 'skipped' }),
      failed: metrics.latest('svc_retention_runs_total', { result: 'failed' }),
      dropped: metrics.latest('svc_retention_partitions_dropped_total'),
    },
    engineExitCode,
  };
}

async function main(cleanup: Cleanup): Promise<StorageBenchReport> {
  const storage = loadStorageBenchSettings();
  const bench = { ...loadBenchSettings(), perEndpoint: storage.perEndpoint };
  const started = Date.now();
  const nc = await connect({ servers: bench.natsUrl, name: 'svc-bench-storage' });
  cleanup.add('NATS connection', () => nc.close());
  for (const removed of await removeStaleLeftovers(bench.postgresUrl, nc)) {
    log(`removed a leftover of a killed run: ${removed}`);
  }
  const receiver = await ReceiverProcess.start(storage.endpoints);
  cleanup.add('receiver', () => receiver.stop());
  log(`receiver (pid ${receiver.pid}) listening on ${receiver.ports.length} ports`);
  const shared: Shared = {
    bench,
    storage,
    nc,
    receiver,
    encryptionKey: randomBytes(32).toString('base64'),
    cleanup,
  };

  const bytes = storage.events > 0 ? await bytesPerDelivery(shared) : null;
  cleanup.check();
  const steady = storage.minutes > 0 ? await steadyRun(shared) : null;

  const { commit, dirty } = gitCommit(bench.repoRoot);
  return {
    scenario:
      'bytes per delivery by table; flat storage with minute-wide partitions under a steady load; ' +
      'partition drop time and latency impact under that load',
    date: new Date(started).toISOString(),
    commit,
    commitDirty: dirty,
    machine: thisMachine(),
    settings: {
      ...storage,
      resultsFile: relative(bench.repoRoot, storage.resultsFile),
      concurrency: bench.concurrency,
      postgres: bench.postgresUrl.replace(/\/\/[^@/]*@/, '//'),
    },
    bytesPerDelivery: bytes,
    steady,
    durationSeconds: (Date.now() - started) / 1000,
  };
}

const cleanup = new Cleanup(log);
cleanup.onSignals(['SIGINT', 'SIGTERM']);
main(cleanup)
  .then(async (report) => {
    await cleanup.run();
    const { resultsFile } = loadStorageBenchSettings();
    mkdirSync(dirname(resultsFile), { recursive: true });
    writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${formatStorageReport(report)}\n`);
    log(`figures written to ${resultsFile}`);
  })
  .catch(async (error: unknown) => {
    if (!cleanup.interrupted) {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    await cleanup.run();
    process.exitCode = 1;
  });
