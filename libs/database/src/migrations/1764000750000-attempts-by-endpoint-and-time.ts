import { MigrationInterface, QueryRunner } from 'typeorm';
import { buildPartitionedIndex } from './build-partitioned-index';

const INDEX = 'delivery_attempts_endpoint_time_idx';
const COLUMNS = '(endpoint_id, attempted_at) INCLUDE (succeeded, latency_ms)';

/**
 * An endpoint's attempts in the order of their time (issue 31, ADR 0042): the stats route reads
 * the attempts of one endpoint over the last 24 hours or 7 days as one range of this index in
 * each partition, never the endpoint's (or tenant's) whole history; outcome and latency are
 * included so that the range is read from the index alone.
 *
 * Built without stopping writers, as deliveries_endpoint_time_idx (1764000200000): the parent's
 * index ON ONLY the parent, each partition's CONCURRENTLY, then attached. Outside a transaction,
 * and every step may be run again after a failure.
 */
export class AttemptsByEndpointAndTime1764000750000 implements MigrationInterface {
  name = 'AttemptsByEndpointAndTime1764000750000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await buildPartitionedIndex(runner, {
      table: 'delivery_attempts',
      name: INDEX,
      definition: COLUMNS,
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX IF EXISTS ${INDEX}`);
  }
}
