import { MigrationInterface, QueryRunner } from 'typeorm';
import { buildPartitionedIndex } from './build-partitioned-index';

const INDEX = 'deliveries_endpoint_time_idx';

/**
 * An endpoint's deliveries in the order of their events' time (ADR 0029): replay walks an
 * endpoint's deliveries in a time range by (retention_key, id), and the test event looks for one
 * still in flight among the endpoint's latest; partitions outside the range are pruned, and within
 * one this index is the range.
 *
 * Built without stopping writers: the parent's index is made ON ONLY the parent (no data), each
 * partition's CONCURRENTLY, then attached; the parent's becomes valid once all are. Partitions
 * made meanwhile get it from the parent (addPartition copies the parent's indexes). So it runs
 * outside a transaction, and every step may be run again after a failure.
 */
export class DeliveriesByEndpointAndTime1764000200000 implements MigrationInterface {
  name = 'DeliveriesByEndpointAndTime1764000200000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await buildPartitionedIndex(runner, {
      table: 'deliveries',
      name: INDEX,
      definition: '(endpoint_id, retention_key, id)',
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX IF EXISTS ${INDEX}`);
  }
}
