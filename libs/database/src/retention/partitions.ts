import { EntityManager, QueryRunner } from 'typeorm';

/**
 * The tables of delivery data, partitioned by time on `retention_key` (ADR 0023): whole
 * partitions are dropped once they outlive retention, never rows deleted.
 */
export const DELIVERY_DATA_TABLES = [
  'events',
  'deliveries',
  'delivery_attempts',
  'inbound_events',
  'delivery_numbers',
] as const;
export type DeliveryDataTable = (typeof DELIVERY_DATA_TABLES)[number];

/** Tables whose rows are never updated or deleted, in every partition (the log). */
const APPEND_ONLY_TABLES = new Set<string>(['events']);

/** Rows whose key is -infinity: history kept for good (endpoints, grants, ...). Never dropped. */
export const KEPT_PARTITION_SUFFIX = '_kept';

export interface TablePartition {
  name: string;
  /** Null for the kept partition (MINVALUE to the epoch). */
  from: Date | null;
  to: Date;
}

/** An EntityManager (a QueryRunner's is `runner.manager`): its query() is typed by the caller. */
type Queryable = Pick<EntityManager, 'query'>;

const identifier = (name: string) => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`not a plain identifier: ${name}`);
  }
  return `"${name}"`;
};

/** The partitions of a table with their ranges, oldest first. */
export async function listPartitions(db: Queryable, table: string): Promise<TablePartition[]> {
  const rows: { name: string; bound: string }[] = await db.query(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass`,
    [table],
  );
  return rows
    .map(({ name, bound }) => {
      const match = /FROM \((MINVALUE|'[^']+')\) TO \('([^']+)'\)/.exec(bound);
      if (!match) {
        throw new Error(`partition ${name} of ${table} has an unexpected bound: ${bound}`);
      }
      const from = match[1] === 'MINVALUE' ? null : new Date(match[1].slice(1, -1));
      return { name, from, to: new Date(match[2]) };
    })
    .sort((a, b) => a.to.getTime() - b.to.getTime());
}

/**
 * Adds a partition for [from, to) (`from` null: MINVALUE). The table is made alone with the
 * parent's indexes, named `<partition>_<what the parent's index name says after the table>`, then
 * attached: attaching takes a lighter lock on the parent than creating a partition in place, and
 * the names let a unique violation in any partition be told apart (isUniqueViolation). An index
 * behind the parent's primary key (or a unique constraint) backs the same constraint on the
 * partition: ATTACH pairs a constraint's index only with a constraint's index, and would
 * otherwise build a second one (`..._pkey1`), leaving ours unattached: twice the space, and a
 * unique violation instead of ON CONFLICT's skip when two writers race for one key.
 */
export async function addPartition(
  db: Queryable,
  table: string,
  name: string,
  range: { from: Date | null; to: Date },
): Promise<void> {
  await db.query(
    `CREATE TABLE IF NOT EXISTS ${identifier(name)} (LIKE ${identifier(table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`,
  );
  const indexes: { indexname: string; indexdef: string }[] = await db.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1`,
    [table],
  );
  const constraints: { index: string; type: 'p' | 'u' }[] = await db.query(
    `SELECT i.relname AS index, c.contype AS type
       FROM pg_constraint c JOIN pg_class i ON i.oid = c.conindid
      WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u')`,
    [table],
  );
  const attached: unknown[] = await db.query(
    `SELECT 1 FROM pg_inherits WHERE inhrelid = $1::regclass AND inhparent = $2::regclass`,
    [name, table],
  );
  for (const { indexname, indexdef } of indexes) {
    const own = indexname.startsWith(`${table}_`)
      ? `${name}_${indexname.slice(table.length + 1)}`
      : `${name}_${indexname}`;
    const definition = indexdef.replace(
      /^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+/,
      (_, unique = '') =>
        `CREATE ${unique}INDEX IF NOT EXISTS ${identifier(own)} ON ${identifier(name)}`,
    );
    await db.query(definition);
    const constraint = constraints.find((c) => c.index === indexname);
    if (constraint && attached.length === 0) {
      const existing: unknown[] = await db.query(
        `SELECT 1 FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2`,
        [name, own],
      );
      if (existing.length === 0) {
        await db.query(
          `ALTER TABLE ${identifier(name)} ADD CONSTRAINT ${identifier(own)}
             ${constraint.type === 'p' ? 'PRIMARY KEY' : 'UNIQUE'} USING INDEX ${identifier(own)}`,
        );
      }
    }
  }
  const from = range.from ? `'${range.from.toISOString()}'` : 'MINVALUE';
  if (attached.length === 0) {
    await db.query(
      `ALTER TABLE ${identifier(table)} ATTACH PARTITION ${identifier(name)}
         FOR VALUES FROM (${from}) TO ('${range.to.toISOString()}')`,
    );
  }
  if (APPEND_ONLY_TABLES.has(table)) {
    // The parent's statement trigger does not fire for statements on a partition itself.
    await db.query(
      `CREATE OR REPLACE TRIGGER ${identifier(`${name}_append_only`)}
         BEFORE UPDATE OR DELETE OR TRUNCATE ON ${identifier(name)}
         FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()`,
    );
  }
}

/**
 * Drops a partition without blocking writers of the other partitions for long: it is detached
 * CONCURRENTLY (outside a transaction), then dropped. Must run on a runner with no transaction.
 */
export async function dropPartition(
  runner: QueryRunner,
  table: string,
  name: string,
): Promise<void> {
  const attached: unknown[] = await runner.manager.query(
    `SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = $2::regclass`,
    [name, table],
  );
  if (attached.length > 0) {
    await runner.manager.query(
      `ALTER TABLE ${identifier(table)} DETACH PARTITION ${identifier(name)} CONCURRENTLY`,
    );
  }
  await runner.manager.query(`DROP TABLE IF EXISTS ${identifier(name)}`);
}
