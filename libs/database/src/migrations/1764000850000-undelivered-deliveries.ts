import { MigrationInterface, QueryRunner } from 'typeorm';
import { buildPartitionedIndex } from './build-partitioned-index';

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
    for (const index of INDEXES) {
      await buildPartitionedIndex(runner, {
        table: 'deliveries',
        name: index.name,
        definition: `${index.columns} WHERE ${UNDELIVERED_PREDICATE}`,
      });
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const index of INDEXES) {
      await runner.query(`DROP INDEX IF EXISTS ${index.name}`);
    }
  }
}
