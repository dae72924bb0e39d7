import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import {
  currentRunId,
  databaseUrl,
  templateDatabase,
  TEST_DATABASE_PREFIX,
  TEST_POSTGRES_URL,
} from './test-environment';

async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A database of the suite's own: a copy of the run's migrated template, or empty if asked. */
export async function createTestDatabase(
  options: { empty?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const run = currentRunId();
  const name = `${TEST_DATABASE_PREFIX}${run}_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? 'template0' : templateDatabase(run);
  await admin((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  return {
    url: databaseUrl(name),
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
