import { MigrationInterface, QueryRunner } from 'typeorm';
import { addPartition, KEPT_PARTITION_SUFFIX } from '../retention/partitions';

/** The key of rows whose stream id names delivery data, in SQL: its ULID time, else -infinity. */
const keyOf = (column: string) =>
  `CASE WHEN ${column} ~ '^(del|rej)_[0-9a-hjkmnp-tv-z]{26}$' THEN svc_ulid_time(substr(${column}, 5))
        ELSE '-infinity'::timestamptz END`;

interface TableMove {
  table: string;
  /** The new table's columns and primary key, with retention_key; PARTITION BY is added. */
  definition: string;
  indexes: string[];
  /** Columns copied, and the retention key of each old row. */
  columns: string;
  key: string;
  identity?: string;
}

const MOVES: TableMove[] = [
  {
    table: 'events',
    definition: `position bigint GENERATED ALWAYS AS IDENTITY,
        stream_id text NOT NULL,
        version integer NOT NULL CHECK (version > 0),
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        retention_key timestamptz NOT NULL,
        PRIMARY KEY (position, retention_key)`,
    indexes: [
      'CREATE UNIQUE INDEX events_stream_version_key ON events (stream_id, version, retention_key)',
      'CREATE INDEX events_type_position_idx ON events (type, position)',
    ],
    columns: 'position, stream_id, version, type, data, metadata, recorded_at',
    key: keyOf('stream_id'),
    identity: 'position',
  },
  {
    table: 'deliveries',
    definition: `id text NOT NULL,
        event_id text NOT NULL,
        endpoint_id text NOT NULL,
        tenant_id text NOT NULL,
        event_type text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'abandoned', 'cancelled')),
        attempts integer NOT NULL,
        run_attempts integer NOT NULL,
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        version integer NOT NULL,
        retention_key timestamptz NOT NULL,
        PRIMARY KEY (id, retention_key)`,
    indexes: [
      `CREATE UNIQUE INDEX deliveries_tenant_event_endpoint_key
         ON deliveries (tenant_id, event_id, endpoint_id, retention_key)`,
      `CREATE INDEX deliveries_abandoned_idx ON deliveries (endpoint_id, completed_at)
         WHERE status = 'abandoned'`,
    ],
    columns: `id, event_id, endpoint_id, tenant_id, event_type, status, attempts, run_attempts,
              last_attempt_at, next_attempt_at, created_at, completed_at, version`,
    key: keyOf('id'),
  },
  {
    table: 'delivery_attempts',
    definition: `position bigint NOT NULL,
        delivery_id text NOT NULL,
        tenant_id text NOT NULL,
        endpoint_id text NOT NULL,
        event_id text NOT NULL,
        attempt integer NOT NULL,
        succeeded boolean NOT NULL,
        status_code integer,
        error_kind text,
        error_message text,
        latency_ms integer NOT NULL,
        response_excerpt text,
        attempted_at timestamptz NOT NULL,
        retention_key timestamptz NOT NULL,
        PRIMARY KEY (position, retention_key)`,
    indexes: [
      `CREATE INDEX delivery_attempts_endpoint_idx ON delivery_attempts (endpoint_id, position DESC)`,
    ],
    columns: `position, delivery_id, tenant_id, endpoint_id, event_id, attempt, succeeded,
              status_code, error_kind, error_message, latency_ms, response_excerpt, attempted_at`,
    key: keyOf('delivery_id'),
  },
  {
    table: 'inbound_events',
    definition: `tenant_id text NOT NULL,
        event_id text NOT NULL,
        type text NOT NULL,
        body text NOT NULL,
        trace_context jsonb,
        received_at timestamptz NOT NULL DEFAULT now(),
        retention_key timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, event_id, retention_key)`,
    indexes: [],
    columns: 'tenant_id, event_id, type, body, trace_context, received_at',
    key: 'received_at',
  },
];

/**
 * Delivery data becomes bounded (ADR 0023): the log, the delivery and attempt projections and
 * the stored bodies move to tables partitioned by time on `retention_key`, the creation time of
 * the delivery (or rejection) a row belongs to; history that is kept (endpoints, grants, ...) has
 * the key -infinity and stays in the `_kept` partition. The existing rows are copied: those of
 * delivery data into one `_legacy` partition that ends now and expires as a whole, one retention
 * period after this migration. The log stays append-only row by row.
 */
export class DeliveryDataPartitions1763860000000 implements MigrationInterface {
  name = 'DeliveryDataPartitions1763860000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION svc_ulid_time(ulid text) RETURNS timestamptz
        LANGUAGE plpgsql IMMUTABLE STRICT AS $$
      DECLARE
        alphabet constant text := '0123456789abcdefghjkmnpqrstvwxyz';
        ms numeric := 0;
      BEGIN
        FOR i IN 1..10 LOOP
          ms := ms * 32 + strpos(alphabet, substr(lower(ulid), i, 1)) - 1;
        END LOOP;
        RETURN to_timestamp(ms / 1000);
      END $$`);
    const [{ legacy_end }]: { legacy_end: Date }[] = await runner.manager.query(`
      SELECT greatest(
        now(),
        (SELECT max(${keyOf('stream_id')}) FROM events),
        (SELECT max(${keyOf('id')}) FROM deliveries),
        (SELECT max(received_at) FROM inbound_events)
      ) + interval '1 millisecond' AS legacy_end`);
    for (const move of MOVES) {
      const old = `${move.table}_unpartitioned`;
      await runner.query(`ALTER TABLE ${move.table} RENAME TO ${old}`);
      const oldIndexes: { indexname: string }[] = await runner.manager.query(
        `SELECT indexname FROM pg_indexes WHERE tablename = $1`,
        [old],
      );
      for (const { indexname } of oldIndexes) {
        await runner.query(`ALTER INDEX ${indexname} RENAME TO ${old}_${indexname}`);
      }
      await runner.query(
        `CREATE TABLE ${move.table} (${move.definition}) PARTITION BY RANGE (retention_key)`,
      );
      for (const index of move.indexes) {
        await runner.query(index);
      }
      await addPartition(runner.manager, move.table, `${move.table}${KEPT_PARTITION_SUFFIX}`, {
        from: null,
        to: new Date(0),
      });
      await addPartition(runner.manager, move.table, `${move.table}_legacy`, {
        from: new Date(0),
        to: legacy_end,
      });
      const overriding = move.identity ? 'OVERRIDING SYSTEM VALUE' : '';
      await runner.query(
        `INSERT INTO ${move.table} (${move.columns}, retention_key) ${overriding}
         SELECT ${move.columns}, ${move.key} FROM ${old}`,
      );
      if (move.identity) {
        await runner.query(
          `SELECT setval(pg_get_serial_sequence('${move.table}', '${move.identity}'),
                         coalesce((SELECT max(${move.identity}) FROM ${move.table}), 0) + 1, false)`,
        );
      }
      await runner.query(`DROP TABLE ${old}`);
    }
    await runner.query(`
      CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()`);
    await runner.query('DROP FUNCTION svc_ulid_time');
  }

  down(): Promise<void> {
    return Promise.reject(
      new Error(
        'DeliveryDataPartitions1763860000000 cannot be reverted: restore a backup taken before it',
      ),
    );
  }
}
