import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * The `pg` pool under TypeORM's PostgreSQL driver (it keeps it as `master`; undefined until the
 * data source is initialised): for prepared statements, the pool's counts and its events.
 * TypeORM types `master` as `any`, since its drivers load their client libraries at run time.
 */
export function connectionPoolOf(dataSource: DataSource): Pool | undefined {
  const driver = dataSource.driver;
  return driver instanceof PostgresDriver ? (driver.master as Pool | undefined) : undefined;
}
