import { MIGRATIONS, MIGRATIONS_TABLE } from '@svc/database';
import { Client } from 'pg';
import { runSvc } from '../support/cli-runner';
import { createTestDatabase } from '../support/test-database';

/**
 * Every app pod migrates in an init container (`node dist/apps/cli/src/main.js migrate --json`,
 * deploy/kubernetes/base; ADR 0020), so a rollout or a scale-up starts several migrators on the
 * same database at once. This runs that command (the real CLI, each run with connections of its
 * own) for three pods at the same time on an empty database, as a first rollout does: the
 * advisory lock makes them wait for each other, one applies every migration, the others find
 * nothing to do, and all three succeed.
 */
describe('the init containers of pods starting together', () => {
  let database: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
  });
  afterAll(() => database.drop());

  const migrate = () =>
    runSvc(['migrate', '--json'], { env: { DATABASE_URL: database.url, LOG_LEVEL: 'silent' } });

  it('all succeed on an empty database, and the schema is migrated exactly once', async () => {
    const runs = await Promise.all([migrate(), migrate(), migrate()]);
    expect(runs.map((run) => [run.code, run.stderr])).toEqual([
      [0, ''],
      [0, ''],
      [0, ''],
    ]);
    const names = MIGRATIONS.map((migration) => migration.name);
    const applied = runs.map((run) => run.json.applied as string[]);
    expect(applied.filter((list) => list.length > 0)).toEqual([names]);
    expect(applied.filter((list) => list.length === 0)).toHaveLength(2);

    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`,
      );
      expect(rows.map((row) => row.name)).toEqual(names);
    } finally {
      await client.end();
    }
  });

  it('the next pod to start finds nothing to do', async () => {
    expect(await migrate()).toMatchObject({ code: 0, json: { applied: [] } });
  });
});
