import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrateDatabase } from '../../libs/database/src/migrate';
import { ensureConsoleBuilt } from './console-build';
import {
  databaseUrl,
  hasCurrentRunId,
  newRunId,
  runStartedAt,
  setCurrentRunId,
  STALE_RUN_SECONDS,
  templateDatabase,
  TEST_DATABASE_PREFIX,
  TEST_POSTGRES_URL,
} from './test-environment';

/**
 * Migrates one template database per run; each suite then copies it (CREATE DATABASE ...
 * TEMPLATE), which is far faster than migrating per suite and keeps suites isolated. Database
 * names carry the run id, so concurrent runs never touch each other's. Only relative imports
 * here: Jest maps no path aliases for global setup.
 */
const DAY_MS = 24 * 3600_000;

export default async function globalSetup(): Promise<void> {
  if (hasCurrentRunId()) {
    // The integration and e2e projects share one run (and template) in one jest invocation.
    return;
  }
  ensureConsoleBuilt();
  const now = Math.floor(Date.now() / 1000);
  const run = newRunId(now, randomBytes(4).toString('hex'));
  setCurrentRunId(run);
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    const existing = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${TEST_DATABASE_PREFIX}%`],
    );
    for (const { datname } of existing.rows) {
      const started = runStartedAt(datname.slice(TEST_DATABASE_PREFIX.length).split('_')[0]);
      if (started === null || now - started > STALE_RUN_SECONDS) {
        await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
    }
    await admin.query(`CREATE DATABASE "${templateDatabase(run)}"`);
  } finally {
    await admin.end();
  }
  // Partitions of delivery data for today and the days ahead: a run lasts minutes.
  await migrateDatabase(databaseUrl(templateDatabase(run)), {
    retentionMs: 30 * DAY_MS,
    partitionWidthMs: DAY_MS,
    aheadPartitions: 2,
  });
}
