import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The `pg` pool under TypeORM's PostgreSQL driver (it keeps it as `master`; undefined until the
 * data source is initialised): for prepared statements, the pool's counts and its events.
 */
export function connectionPoolOf(dataSource: DataSource): Pool | undefined {
  return (dataSource.driver as unknown as { master?: Pool }).master;
}
