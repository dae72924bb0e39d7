import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { MIGRATIONS, MIGRATIONS_TABLE } from './migrations';
import { maintainPartitions, RetentionSettings } from './retention/partition-maintenance';

/** Any constant shared by every process that migrates this database. */
const MIGRATION_LOCK = 7_301_457_001;
/** How often a migrator waiting for another one asks for the lock again. */
const LOCK_POLL_MS = 200;

/**
 * Applies pending migrations. An advisory lock makes concurrent callers (several pods starting
 * at once) wait for each other instead of racing. Returns the names of the migrations applied.
 *
 * The waiting side polls with `pg_try_advisory_lock` rather than blocking in `pg_advisory_lock`:
 * a blocked statement holds a snapshot, and `CREATE INDEX CONCURRENTLY` in the holder's migration
 * waits for every older snapshot to end, so the two would wait for each other for ever.
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    for (;;) {
      const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [
        MIGRATION_LOCK,
      ])) as { locked: boolean }[];
      if (locked) {
        break;
      }
      await sleep(LOCK_POLL_MS);
    }
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}

/**
 * Migrates the database at `url` with a short-lived connection of its own; with `partitions`,
 * also makes the partitions of delivery data that the coming writes need (none is dropped).
 */
export async function migrateDatabase(
  url: string,
  partitions?: RetentionSettings,
): Promise<string[]> {
  const dataSource = await new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    poolSize: 2,
  }).initialize();
  try {
    const applied = await migrate(dataSource);
    if (partitions) {
      await maintainPartitions(dataSource, partitions, new Date(), { drop: false });
    }
    return applied;
  } finally {
    await dataSource.destroy();
  }
}
