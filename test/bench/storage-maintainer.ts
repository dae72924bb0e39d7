import {
  DELIVERY_DATA_TABLES,
  dropPartition,
  listPartitions,
  maintainPartitions,
  MaintenanceReport,
  PARTITION_MAINTENANCE_LOCK,
  RetentionSettings,
} from '@svc/database';
import { DataSource } from 'typeorm';
import { BENCH_APPLICATION } from './storage-probe';

/**
 * The storage bench's own turns of partition maintenance (libs/database `maintainPartitions`,
 * the engine's settings), so that it can time them. Its one connection holds the maintenance lock
 * around a turn: the engine's keeper skips while it is held, and `maintainPartitions` on the same
 * session takes it again (session advisory locks stack) and gives back only its own hold.
 */
export class StorageMaintainer {
  private constructor(
    private readonly dataSource: DataSource,
    readonly settings: RetentionSettings,
  ) {}

  static async open(url: string, settings: RetentionSettings): Promise<StorageMaintainer> {
    const dataSource = await new DataSource({
      type: 'postgres',
      url,
      applicationName: `${BENCH_APPLICATION}-maintainer`,
      poolSize: 1,
      // One session for good: the lock held by hold() belongs to it.
      extra: { connectionTimeoutMillis: 5000, idleTimeoutMillis: 0 },
    }).initialize();
    return new StorageMaintainer(dataSource, settings);
  }

  /** Waits for the lock (an engine's turn in progress ends first); the engine's turns then skip. */
  async hold(): Promise<void> {
    await this.dataSource.query('SELECT pg_advisory_lock($1)', [PARTITION_MAINTENANCE_LOCK]);
  }

  async release(): Promise<void> {
    await this.dataSource.query('SELECT pg_advisory_unlock($1)', [PARTITION_MAINTENANCE_LOCK]);
  }

  /** One turn, timed; `drop: false` only makes the partitions ahead. */
  async turn(drop: boolean): Promise<{ report: MaintenanceReport; startedAt: number; ms: number }> {
    const startedAt = Date.now();
    const started = performance.now();
    const report = await maintainPartitions(this.dataSource, this.settings, new Date(), { drop });
    const ms = performance.now() - started;
    if (!report.ran) {
      throw new Error('the bench did not get the maintenance lock on its own session');
    }
    return { report, startedAt, ms };
  }

  /**
   * The `_legacy` partitions a fresh database gets from the migration end at the migration's
   * moment, not on a boundary: empty here, they are dropped at once so that every drop the bench
   * times is one of a full partition at a boundary.
   */
  async dropEmptyLegacyPartitions(): Promise<string[]> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    const dropped: string[] = [];
    try {
      for (const table of DELIVERY_DATA_TABLES) {
        for (const partition of await listPartitions(runner.manager, table)) {
          if (!partition.name.endsWith('_legacy')) {
            continue;
          }
          const [{ rows }]: { rows: number }[] = await runner.manager.query(
            `SELECT count(*)::int AS rows FROM "${partition.name}"`,
          );
          if (rows > 0) {
            throw new Error(`${partition.name} is not empty: not a fresh database`);
          }
          await dropPartition(runner, table, partition.name);
          dropped.push(partition.name);
        }
      }
    } finally {
      await runner.release();
    }
    return dropped;
  }

  close(): Promise<void> {
    return this.dataSource.destroy();
  }
}
