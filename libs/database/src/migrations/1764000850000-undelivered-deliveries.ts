import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deliveries that did not get through: abandoned, or still pending after a failed attempt of
 * their current run. Probes (`webhook.test`) are left out, as recover and replay leave them out.
 * GET /v1/deliveries (apps/api/src/undelivered) repeats these clauses in its query, so that
 * PostgreSQL can prove the query implies the predicate and use the indexes below.
 */
const UNDELIVERED_PREDICATE = `(status = 'abandoned' OR (status = 'pending' AND run_attempts > 0))
  AND event_type <> 'webhook.test'`;

/** Each index: its name on the parent, and its columns, newest first read backwards. */
const INDEXES = [
  // A tenant's undelivered deliveries of one status, in the order of their events' time.
  { name: 'deliveries_undelivered_idx', columns: '(tenant_id, status, retention_key, id)' },
  // The same for one endpoint, when the caller filters by endpoint.
  {
    name: 'deliveries_endpoint_undelivered_idx',
    columns: '(endpoint_id, status, retention_key, id)',
  },
];

/**
 * Partial indexes for the undelivered view (issue 31, ADR 0042): `GET /v1/deliveries?status=…`
 * reads a range of one of them per partition, newest first, and stops once a page is full; it
 * never reads the deliveries that succeeded, which are nearly all of them.
 *
 * Built without stopping writers, as deliveries_endpoint_time_idx (1764000200000): each parent's
 * index ON ONLY the parent, each partition's CONCURRENTLY, then attached; partitions made later
 * get them from the parent (addPartition copies its indexes, predicate included). Outside a
 * transaction, and every step may be run again after a failure.
 */
export class UndeliveredDeliveries1764000850000 implements MigrationInterface {
  name = 'UndeliveredDeliveries1764000850000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    const partitions = await runner.manager.query<{ name: string }[]>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'deliveries'::regclass ORDER BY c.relname`,
    );
    for (const index of INDEXES) {
      await runner.query(
        `CREATE INDEX IF NOT EXISTS ${index.name} ON ONLY deliveries ${index.columns}
           WHERE ${UNDELIVERED_PREDICATE}`,
      );
      const suffix = index.name.slice('deliveries_'.length);
      for (const { name } of partitions) {
        await buildOnPartition(runner, index, name, `${name}_${suffix}`);
      }
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const index of INDEXES) {
      await runner.query(`DROP INDEX IF EXISTS ${index.name}`);
    }
  }
}

async function buildOnPartition(
  runner: QueryRunner,
  index: { name: string; columns: string },
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
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${own}" ON "${partition}" ${index.columns}
       WHERE ${UNDELIVERED_PREDICATE}`,
  );
  const [attached] = await runner.manager.query<unknown[]>(
    `SELECT 1 FROM pg_inherits WHERE inhrelid = $1::regclass AND inhparent = $2::regclass`,
    [own, index.name],
  );
  if (!attached) {
    await runner.query(`ALTER INDEX ${index.name} ATTACH PARTITION "${own}"`);
  }
}
