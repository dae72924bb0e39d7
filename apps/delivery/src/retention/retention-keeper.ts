import { Logger } from '@nestjs/common';
import { DELIVERY_DATA_TABLES, maintainPartitions, RetentionSettings } from '@svc/database';
import { Counter, Gauge, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

export interface RetentionKeeperOptions {
  settings: RetentionSettings;
  /** How often the partitions are checked (ENGINE_TUNING.retention says why). */
  intervalMs: number;
}

/**
 * Keeps delivery data bounded while the engine runs (ADR 0023): before the engine takes any
 * work, the partitions its writes need exist; then, every interval, partitions are made ahead and
 * the expired ones dropped (by whichever engine holds the maintenance lock). Every engine reports
 * the table sizes and the oldest partition kept.
 */
export class RetentionKeeper {
  private readonly logger = new Logger('RetentionKeeper');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly runs: Counter<'result'>;
  private readonly lastRun: Gauge;
  private readonly oldest: Gauge;
  private readonly tableBytes: Gauge<'table'>;
  private readonly dropped: Counter;

  constructor(
    private readonly dataSource: DataSource,
    registry: Registry,
    private readonly options: RetentionKeeperOptions,
  ) {
    this.runs = new Counter({
      name: 'svc_retention_runs_total',
      help: 'Partition maintenance turns, by result: ran, skipped (another engine held the lock), failed.',
      labelNames: ['result'],
      registers: [registry],
    });
    for (const result of ['ran', 'skipped', 'failed']) {
      this.runs.inc({ result }, 0);
    }
    this.lastRun = new Gauge({
      name: 'svc_retention_last_run_timestamp_seconds',
      help: 'When this engine last completed partition maintenance (0: never).',
      registers: [registry],
    });
    this.oldest = new Gauge({
      name: 'svc_retention_oldest_partition_timestamp_seconds',
      help: "Start of the oldest time partition of delivery data kept (0: none); the migration's legacy partition, which ends at the migration, is not counted.",
      registers: [registry],
    });
    this.tableBytes = new Gauge({
      name: 'svc_database_table_bytes',
      help: 'Bytes on disk of a table of delivery data, all its partitions and indexes.',
      labelNames: ['table'],
      registers: [registry],
    });
    this.dropped = new Counter({
      name: 'svc_retention_partitions_dropped_total',
      help: 'Partitions of delivery data dropped past retention, by this engine.',
      registers: [registry],
    });
    this.lastRun.set(0);
    this.oldest.set(0);
  }

  /** The first turn, which must succeed before the engine takes work; then the interval. */
  async start(): Promise<void> {
    if (this.timer) {
      return; // started already, by an earlier try of the engine's start
    }
    await this.turn(true);
    this.timer = setInterval(() => {
      this.running ??= this.turn(false)
        .catch(() => undefined)
        .finally(() => (this.running = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async turn(first: boolean): Promise<void> {
    try {
      const report = await maintainPartitions(this.dataSource, this.options.settings);
      this.runs.inc({ result: report.ran ? 'ran' : 'skipped' });
      if (report.ran) {
        this.lastRun.set(Date.now() / 1000);
        this.dropped.inc(report.dropped.length);
        if (report.created.length + report.dropped.length > 0) {
          this.logger.log(
            `partitions created: ${report.created.length}, dropped: ${report.dropped.join(', ') || 'none'}`,
          );
        }
      }
      await this.measure();
    } catch (error) {
      this.runs.inc({ result: 'failed' });
      this.logger.error(`partition maintenance failed: ${(error as Error).message}`);
      if (first) {
        throw error;
      }
    }
  }

  private async measure(): Promise<void> {
    const sizes: { table: string; bytes: string; oldest: Date | null }[] =
      await this.dataSource.query(
        `SELECT p.relname AS table,
              coalesce(sum(pg_total_relation_size(i.inhrelid)), 0)::text AS bytes,
              min(CASE WHEN c.relname NOT LIKE '%\\_kept' AND c.relname NOT LIKE '%\\_legacy' THEN
                (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz
              END) AS oldest
         FROM pg_class p
         LEFT JOIN pg_inherits i ON i.inhparent = p.oid
         LEFT JOIN pg_class c ON c.oid = i.inhrelid
        WHERE p.relname = ANY($1) AND p.relkind = 'p'
        GROUP BY p.relname`,
        [DELIVERY_DATA_TABLES],
      );
    for (const row of sizes) {
      this.tableBytes.set({ table: row.table }, Number(row.bytes));
      if (row.table === 'deliveries') {
        this.oldest.set(row.oldest ? new Date(row.oldest).getTime() / 1000 : 0);
      }
    }
  }
}
