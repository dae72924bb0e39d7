import { DELIVERY_DATA_TABLES, KEPT_PARTITION_SUFFIX } from '@svc/database';
import { Client } from 'pg';

/** The tables whose size the storage bench reports: delivery data and the retry schedule. */
export const STORAGE_TABLES = [...DELIVERY_DATA_TABLES, 'delivery_schedule'] as const;
export type StorageTable = (typeof STORAGE_TABLES)[number];

/** Sessions of the bench itself carry this application name, so lock figures leave them out. */
export const BENCH_APPLICATION = 'svc-bench';

export interface TableStorage {
  /** pg_total_relation_size of the table and of every partition (heap, TOAST, indexes, maps). */
  bytes: number;
  /** Time partitions (the `_kept` one is not counted); 0 for a plain table. */
  partitions: number;
}

/** Engine sessions of the run's database waiting for a lock at one moment. */
export interface LockWaiters {
  /** Waiting for any lock: also a row or transaction another engine session holds. */
  waiting: number;
  /** How long the longest of them has been in its statement. */
  longestMs: number;
  /** Waiting for a lock on a table (`wait_event = 'relation'`): what DDL can cause. */
  onTable: number;
  onTableLongestMs: number;
}

/**
 * What the storage bench reads from PostgreSQL on a connection of its own: sizes, partition
 * counts, rows, and who waits for a lock.
 */
export class StorageProbe {
  private constructor(private readonly client: Client) {}

  static async open(url: string): Promise<StorageProbe> {
    const client = new Client({ connectionString: url, application_name: BENCH_APPLICATION });
    await client.connect();
    return new StorageProbe(client);
  }

  /** So that sizes are settled: dead tuples gone, visibility and free-space maps made. */
  async vacuumAnalyze(): Promise<void> {
    for (const table of STORAGE_TABLES) {
      await this.client.query(`VACUUM ANALYZE "${table}"`);
    }
  }

  async sizes(): Promise<Record<StorageTable, TableStorage>> {
    const { rows } = await this.client.query<{ table: StorageTable; bytes: string; parts: string }>(
      `SELECT p.relname AS table,
              (pg_total_relation_size(p.oid)
                + coalesce(sum(pg_total_relation_size(i.inhrelid)), 0))::text AS bytes,
              count(c.oid) FILTER (WHERE c.relname NOT LIKE '%' || $2)::text AS parts
         FROM pg_class p
         LEFT JOIN pg_inherits i ON i.inhparent = p.oid
         LEFT JOIN pg_class c ON c.oid = i.inhrelid
        WHERE p.relname = ANY($1) AND p.relkind IN ('r', 'p')
          AND p.relnamespace = current_schema()::regnamespace
        GROUP BY p.oid, p.relname`,
      [STORAGE_TABLES, KEPT_PARTITION_SUFFIX.replace('_', '\\_')],
    );
    const sizes = {} as Record<StorageTable, TableStorage>;
    for (const table of STORAGE_TABLES) {
      const row = rows.find((r) => r.table === table);
      if (!row) {
        throw new Error(`table ${table} not found`);
      }
      sizes[table] = { bytes: Number(row.bytes), partitions: Number(row.parts) };
    }
    return sizes;
  }

  async rowCounts(): Promise<Record<StorageTable, number>> {
    const counts = {} as Record<StorageTable, number>;
    for (const table of STORAGE_TABLES) {
      const { rows } = await this.client.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${table}"`,
      );
      counts[table] = Number(rows[0].n);
    }
    return counts;
  }

  /** Rows of delivery data (kept history excluded) whose retention key is before `cutoff`. */
  async rowsBefore(table: (typeof DELIVERY_DATA_TABLES)[number], cutoff: Date): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${table}"
        WHERE retention_key > '-infinity'::timestamptz AND retention_key < $1`,
      [cutoff],
    );
    return Number(rows[0].n);
  }

  /** Sessions of the database, other than the bench's, waiting for a lock right now. */
  async lockWaiters(): Promise<LockWaiters> {
    const { rows } = await this.client.query<{
      waiting: number;
      longest_ms: number;
      on_table: number;
      on_table_longest_ms: number;
    }>(
      `SELECT count(*)::int AS waiting,
              coalesce(max(extract(epoch FROM clock_timestamp() - query_start) * 1000), 0)::float8
                AS longest_ms,
              (count(*) FILTER (WHERE wait_event = 'relation'))::int AS on_table,
              coalesce(max(extract(epoch FROM clock_timestamp() - query_start) * 1000)
                FILTER (WHERE wait_event = 'relation'), 0)::float8 AS on_table_longest_ms
         FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'
          AND application_name NOT LIKE $1 || '%'`,
      [BENCH_APPLICATION],
    );
    const row = rows[0];
    return {
      waiting: row.waiting,
      longestMs: row.longest_ms,
      onTable: row.on_table,
      onTableLongestMs: row.on_table_longest_ms,
    };
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
