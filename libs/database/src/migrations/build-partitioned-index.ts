import { QueryRunner } from 'typeorm';

export interface PartitionedIndex {
  /** The partitioned table. */
  table: string;
  /** The parent's index, `<table>_<what>`; each partition's is `<partition>_<what>`. */
  name: string;
  /** What follows `ON <table>`: the columns, and a predicate if partial. */
  definition: string;
}

/**
 * Builds an index on a partitioned table without stopping its writers: the parent's ON ONLY the
 * parent (no data), each partition's CONCURRENTLY, then attached; the parent's becomes valid once
 * all are. Partitions added meanwhile get it from the parent (addPartition copies the parent's
 * indexes, under the same names as these). Run outside a transaction (`transaction = false`);
 * every step may be run again after a failure.
 */
export async function buildPartitionedIndex(
  runner: QueryRunner,
  index: PartitionedIndex,
): Promise<void> {
  await runner.query(
    `CREATE INDEX IF NOT EXISTS ${index.name} ON ONLY ${index.table} ${index.definition}`,
  );
  const partitions = await runner.manager.query<{ name: string }[]>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [index.table],
  );
  const what = index.name.slice(index.table.length + 1);
  for (const { name } of partitions) {
    await buildOnPartition(runner, index, name, `${name}_${what}`);
  }
}

async function buildOnPartition(
  runner: QueryRunner,
  index: PartitionedIndex,
  partition: string,
  own: string,
): Promise<void> {
  // A build that failed half-way leaves an invalid index behind: it is made again.
  const [invalid] = await runner.manager.query<unknown[]>(
    `SELECT 1 FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
      WHERE c.relname = $1 AND NOT x.indisvalid`,
    [own],
  );
  if (invalid) {
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${own}"`);
  }
  await runner.query(
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${own}" ON "${partition}" ${index.definition}`,
  );
  const [attached] = await runner.manager.query<unknown[]>(
    `SELECT 1 FROM pg_inherits WHERE inhrelid = $1::regclass AND inhparent = $2::regclass`,
    [own, index.name],
  );
  if (!attached) {
    await runner.query(`ALTER INDEX ${index.name} ATTACH PARTITION "${own}"`);
  }
}
