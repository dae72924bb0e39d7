import { Client } from 'pg';
import { migrateDatabase } from '../../libs/database/src/migrate';
import {
  databaseUrl,
  TEMPLATE_DATABASE,
  TEST_DATABASE_PREFIX,
  TEST_POSTGRES_URL,
} from './test-environment';

/**
 * Migrates one template database per run (only relative imports here: Jest maps no aliases for
 * global setup); each suite then copies it (CREATE DATABASE ...
 * TEMPLATE), which is far faster than migrating per suite and keeps suites isolated.
 */
export default async function globalSetup(): Promise<void> {
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    const leftovers = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
      [`${TEST_DATABASE_PREFIX}%`, TEMPLATE_DATABASE],
    );
    for (const { datname } of leftovers.rows) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  } finally {
    await admin.end();
  }
  await migrateDatabase(databaseUrl(TEMPLATE_DATABASE));
}
