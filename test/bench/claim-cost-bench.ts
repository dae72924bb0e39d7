import { migrateDatabase } from '@svc/database';
import { DeliveryNumbers } from '@svc/deliveries';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dropDatabase, newNamespace } from './bench-stack';
import { loadBenchSettings } from './bench-settings';
import { Cleanup, runBench } from './cleanup';
import { cpuSecondsOf } from './process-stats';

/**
 * What one numbering claim (`DeliveryNumbers.claimForNewEvent`, ADR 0045) costs PostgreSQL on a
 * fresh database and on one holding a month of daily partitions: the claim's stored-body lookup
 * reads every partition of `inbound_events` (ADR 0023), so a deployment pays more per claim as
 * its retention fills than the delivery bench, which starts from a fresh database, shows. Each
 * round runs the claims in a row on one connection, each a new 1 KB event to one of ten
 * endpoints, on each database in turn, and reads the backend's CPU from /proc. Partitions made
 * ahead stand in for the days behind: the lookup reads them all alike.
 * `npm run bench:claim-cost`.
 */
const CLAIMS = Number(process.env.BENCH_CLAIM_COST_CLAIMS ?? 2000);
const WARM_UP_CLAIMS = 300;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** A fresh database's partitions ahead (the bench's) and a month's worth. */
const PARTITIONS_AHEAD = (process.env.BENCH_CLAIM_COST_PARTITIONS_AHEAD ?? '2,32')
  .split(',')
  .map(Number);
const DAY_MS = 86_400_000;
const BODY = JSON.stringify({ data: 'x'.repeat(1000) });

const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

interface ClaimDatabase {
  partitionsAhead: number;
  partitions: number;
  dataSource: DataSource;
  backendPid: number;
  numbers: DeliveryNumbers;
  claimed: number;
}

async function main(cleanup: Cleanup): Promise<void> {
  const settings = loadBenchSettings();
  const databases: ClaimDatabase[] = [];
  for (const partitionsAhead of PARTITIONS_AHEAD) {
    const ns = newNamespace();
    cleanup.add(`database ${ns.database}`, () => dropDatabase(settings.postgresUrl, ns.database));
    const admin = new Client({ connectionString: settings.postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${ns.database}"`).finally(() => admin.end());
    const url = new URL(settings.postgresUrl);
    url.pathname = `/${ns.database}`;
    await migrateDatabase(url.toString(), {
      retentionMs: 30 * DAY_MS,
      partitionWidthMs: DAY_MS,
      aheadPartitions: partitionsAhead,
    });
    const dataSource = await new DataSource({
      type: 'postgres',
      url: url.toString(),
      // One connection, never closed while idle: its backend is the one whose CPU is read.
      extra: { max: 1, idleTimeoutMillis: 0 },
    }).initialize();
    cleanup.add(`connection to ${ns.database}`, () => dataSource.destroy());
    const [{ pid, partitions }]: { pid: number; partitions: number }[] = await dataSource.query(
      `SELECT pg_backend_pid() AS pid,
              (SELECT count(*)::int FROM pg_inherits WHERE inhparent = 'inbound_events'::regclass)
                AS partitions`,
    );
    const database: ClaimDatabase = {
      partitionsAhead,
      partitions,
      dataSource,
      backendPid: pid,
      numbers: new DeliveryNumbers(dataSource),
      claimed: 0,
    };
    await claimInARow(database, WARM_UP_CLAIMS);
    databases.push(database);
  }

  const results = new Map<ClaimDatabase, number[]>(databases.map((database) => [database, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const database of databases) {
      cleanup.check();
      const cpuMsPerClaim = await claimInARow(database, CLAIMS);
      results.get(database)!.push(cpuMsPerClaim);
      log(
        `round ${round}: ${database.partitions} partitions, ${cpuMsPerClaim.toFixed(3)} ms of PostgreSQL CPU per claim`,
      );
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const [fresh, ...others] = databases;
  const lines = [
    `${CLAIMS} numbering claims in a row, ${ROUNDS} rounds, databases in turn`,
    ...databases.map(
      (database) =>
        `${database.partitions} partitions of inbound_events: median ${median(results.get(database)!).toFixed(3)} ms of PostgreSQL CPU per claim (${results
          .get(database)!
          .map((value) => value.toFixed(3))
          .join(', ')})`,
    ),
    ...others.map((database) => {
      const ratios = results
        .get(database)!
        .map((value, round) => value / results.get(fresh)![round]);
      return `${database.partitions} over ${fresh.partitions} partitions: median ratio ${median(ratios).toFixed(2)} (per round ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')})`;
    }),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

/** Claims `count` new events on the database's one connection; PostgreSQL CPU ms per claim. */
async function claimInARow(database: ClaimDatabase, count: number): Promise<number> {
  const [{ pid }]: { pid: number }[] = await database.dataSource.query(
    'SELECT pg_backend_pid() AS pid',
  );
  if (pid !== database.backendPid) {
    throw new Error(`the connection to the database changed (backend ${pid})`);
  }
  const before = cpuSecondsOf(pid);
  for (let i = 0; i < count; i += 1) {
    const n = (database.claimed += 1);
    await database.numbers.claimForNewEvent(
      {
        eventId: `evt_claimcost${String(n).padStart(13, '0')}`,
        tenantId: 'ten_claimcost',
        type: 'alert.created',
        body: BODY,
        traceContext: null,
        retentionKey: new Date(),
      },
      [`wh_claimcost${n % 10}`],
    );
  }
  return ((cpuSecondsOf(pid) - before) / count) * 1000;
}

runBench(log, main);
