import {
  addPartition,
  DELIVERY_DATA_TABLES,
  dropPartition,
  KEPT_PARTITION_SUFFIX,
  listPartitions,
} from './partitions';
import { DataSource } from 'typeorm';
import { partitionName, planPartitions, PartitionPolicy } from './partition-plan';

/** How long delivery data is kept, and how it is cut into partitions (configuration). */
export interface RetentionSettings {
  retentionMs: number;
  partitionWidthMs: number;
  /** Partitions kept ready beyond the current one (default 3: a stalled job has time to be noticed). */
  aheadPartitions?: number;
}

const DEFAULT_AHEAD_PARTITIONS = 3;

export interface MaintenanceReport {
  /** False when another process held the maintenance lock: it does the work. */
  ran: boolean;
  created: string[];
  dropped: string[];
  /** The start of the oldest time partition of delivery data kept, the legacy one aside (null: none). */
  oldestRetained: Date | null;
}

/**
 * Any constant shared by every process that maintains this database's partitions: the key of
 * the session advisory lock (the storage benchmark holds it to take the turns it times).
 */
export const PARTITION_MAINTENANCE_LOCK = 7_301_457_002;

/**
 * Creates the partitions of delivery data ahead of time and drops those past retention, for
 * every table (ADR 0023). Safe with several engines: one holds a session advisory lock while it
 * works, the others skip their turn. Drops detach CONCURRENTLY, so writers of the current
 * partitions are not held up; pending schedule rows of dropped deliveries go with them.
 */
export async function maintainPartitions(
  dataSource: DataSource,
  settings: RetentionSettings,
  now: Date = new Date(),
  options: { drop?: boolean } = {},
): Promise<MaintenanceReport> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const report: MaintenanceReport = { ran: false, created: [], dropped: [], oldestRetained: null };
  try {
    const [{ locked }]: { locked: boolean }[] = await runner.manager.query(
      'SELECT pg_try_advisory_lock($1) AS locked',
      [PARTITION_MAINTENANCE_LOCK],
    );
    if (!locked) {
      return report;
    }
    report.ran = true;
    try {
      for (const table of DELIVERY_DATA_TABLES) {
        const partitions = (await listPartitions(runner.manager, table)).filter(
          (partition) => !partition.name.endsWith(KEPT_PARTITION_SUFFIX),
        );
        const policy: PartitionPolicy = {
          widthMs: settings.partitionWidthMs,
          retentionMs: settings.retentionMs,
          aheadPartitions: settings.aheadPartitions ?? DEFAULT_AHEAD_PARTITIONS,
          // A stored body is kept one partition longer than the deliveries that read it.
          graceWidths: table === 'inbound_events' ? 1 : 0,
        };
        const ranges = partitions.map((p) => ({ from: p.from ?? new Date(0), to: p.to }));
        const plan = planPartitions(ranges, now, policy);
        for (const range of plan.create) {
          const name = partitionName(table, range);
          await addPartition(runner.manager, table, name, range);
          report.created.push(name);
        }
        if (options.drop !== false) {
          const doomed = partitions.filter((p) =>
            plan.drop.some((range) => range.to.getTime() === p.to.getTime()),
          );
          for (const partition of doomed) {
            if (table === 'deliveries') {
              await runner.manager.query(
                `DELETE FROM delivery_schedule WHERE delivery_id IN (SELECT id FROM "${partition.name}")`,
              );
            }
            await dropPartition(runner, table, partition.name);
            report.dropped.push(partition.name);
          }
        }
        if (table === 'deliveries') {
          const left = (await listPartitions(runner.manager, table)).filter(
            // The migration's legacy partition starts at the epoch, whatever it holds.
            (p) => !p.name.endsWith(KEPT_PARTITION_SUFFIX) && !p.name.endsWith('_legacy'),
          );
          report.oldestRetained = left[0]?.from ?? null;
        }
      }
    } finally {
      await runner.manager.query('SELECT pg_advisory_unlock($1)', [PARTITION_MAINTENANCE_LOCK]);
    }
    return report;
  } finally {
    await runner.release();
  }
}
