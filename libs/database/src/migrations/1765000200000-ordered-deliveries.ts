import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ordered (FIFO) endpoints queue in the schedule (issue 32, ADR 0045): a delivery to one is
 * `ordered` from its start, and its schedule row carries that and its sequence number. The
 * general claim reads only unordered rows (its index is partial, so that a long queue of a
 * failing FIFO endpoint is never walked by it); the head claim reads each ordered endpoint's
 * lowest number by the second index.
 */
export class OrderedDeliveries1765000200000 implements MigrationInterface {
  name = 'OrderedDeliveries1765000200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE deliveries ADD COLUMN ordered boolean NOT NULL DEFAULT false');
    await runner.query(`
      ALTER TABLE delivery_schedule
        ADD COLUMN ordered boolean NOT NULL DEFAULT false,
        ADD COLUMN sequence bigint`);
    await runner.query('DROP INDEX delivery_schedule_due_idx');
    await runner.query(
      'CREATE INDEX delivery_schedule_due_idx ON delivery_schedule (due_at) WHERE NOT ordered',
    );
    await runner.query(`
      CREATE INDEX delivery_schedule_ordered_idx ON delivery_schedule (endpoint_id, sequence)
       WHERE ordered`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX delivery_schedule_ordered_idx');
    await runner.query('DROP INDEX delivery_schedule_due_idx');
    await runner.query('CREATE INDEX delivery_schedule_due_idx ON delivery_schedule (due_at)');
    await runner.query('ALTER TABLE delivery_schedule DROP COLUMN sequence, DROP COLUMN ordered');
    await runner.query('ALTER TABLE deliveries DROP COLUMN ordered');
  }
}
