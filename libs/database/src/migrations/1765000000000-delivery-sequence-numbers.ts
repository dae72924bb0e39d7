import { MigrationInterface, QueryRunner } from 'typeorm';
import { addPartition, KEPT_PARTITION_SUFFIX, listPartitions } from '../retention/partitions';

/**
 * Per-endpoint sequence numbers (issue 32, ADR 0045): a counter row per endpoint, and the number
 * each (event, endpoint) claimed before its first POST. The claims are delivery data, partitioned
 * on `retention_key` like the bodies they are written with, and made with the same ranges as
 * theirs (no kept partition: a claim is never history kept for good). Deliveries and attempts
 * carry the number; rows made before this migration have none.
 */
export class DeliverySequenceNumbers1765000000000 implements MigrationInterface {
  name = 'DeliverySequenceNumbers1765000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE endpoint_sequences (
        endpoint_id text PRIMARY KEY,
        last bigint NOT NULL CHECK (last > 0)
      )`);
    await runner.query(`
      CREATE TABLE delivery_numbers (
        tenant_id text NOT NULL,
        event_id text NOT NULL,
        endpoint_id text NOT NULL,
        sequence bigint NOT NULL CHECK (sequence > 0),
        claimed_at timestamptz NOT NULL DEFAULT now(),
        retention_key timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, event_id, endpoint_id, retention_key)
      ) PARTITION BY RANGE (retention_key)`);
    for (const partition of await listPartitions(runner.manager, 'inbound_events')) {
      if (partition.name.endsWith(KEPT_PARTITION_SUFFIX)) {
        continue;
      }
      const name = `delivery_numbers_${partition.name.slice('inbound_events_'.length)}`;
      await addPartition(runner.manager, 'delivery_numbers', name, partition);
    }
    await runner.query('ALTER TABLE deliveries ADD COLUMN sequence bigint');
    await runner.query('ALTER TABLE delivery_attempts ADD COLUMN sequence bigint');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE delivery_attempts DROP COLUMN sequence');
    await runner.query('ALTER TABLE deliveries DROP COLUMN sequence');
    await runner.query('DROP TABLE delivery_numbers');
    await runner.query('DROP TABLE endpoint_sequences');
  }
}
