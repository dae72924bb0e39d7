import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * In what order each endpoint takes its deliveries (issue 32 item 4, ADR 0045). Existing rows are
 * unordered, which is what their registrations, recorded without the field, fold to; the check
 * keeps a value the engine would not know out of the projection.
 */
export class EndpointOrdering1765000100000 implements MigrationInterface {
  name = 'EndpointOrdering1765000100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN ordering text NOT NULL DEFAULT 'unordered'
          CHECK (ordering IN ('unordered', 'fifo'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhook_endpoints DROP COLUMN ordering');
  }
}
