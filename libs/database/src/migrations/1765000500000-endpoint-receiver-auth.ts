import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per endpoint (issue 34, ADR 0048): how the receiver is authenticated beyond the signature (jsonb:
 * the type and what is not secret in the clear, the secrets sealed as in the log), and the
 * endpoint's own retry schedule and timeout. Existing rows have none of them, which is what their
 * registrations, recorded without the fields, fold to. The bounds repeat the API's rules, so that
 * a row written around the API cannot give the engine a schedule it would not accept.
 */
export class EndpointReceiverAuth1765000500000 implements MigrationInterface {
  name = 'EndpointReceiverAuth1765000500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN auth jsonb NULL,
        ADD COLUMN retry_schedule text[] NULL
          CHECK (cardinality(retry_schedule) BETWEEN 1 AND 8),
        ADD COLUMN timeout_seconds smallint NULL CHECK (timeout_seconds BETWEEN 1 AND 10)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhook_endpoints
        DROP COLUMN auth, DROP COLUMN retry_schedule, DROP COLUMN timeout_seconds`);
  }
}
