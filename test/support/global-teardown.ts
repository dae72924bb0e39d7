import { Client } from 'pg';
import { currentRunId, TEST_DATABASE_PREFIX, TEST_POSTGRES_URL } from './test-environment';

/** Drops whatever this run left behind (its template, and databases of suites that crashed). */
export default async function globalTeardown(): Promise<void> {
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    const mine = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${TEST_DATABASE_PREFIX}${currentRunId()}_%`],
    );
    for (const { datname } of mine.rows) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}
