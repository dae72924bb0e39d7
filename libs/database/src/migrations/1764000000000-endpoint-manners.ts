import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What issue 13 adds to an endpoint's row: the `disabled` status (a 410 Gone, ADR 0027), the
 * secret a rotation replaced with the time it stops signing (ADR 0026), and a rate limit in
 * deliveries per second (ADR 0028). Existing rows keep their values: no previous secret, no limit.
 */
export class EndpointManners1764000000000 implements MigrationInterface {
  name = 'EndpointManners1764000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN previous_secret_ciphertext text,
        ADD COLUMN previous_secret_expires_at timestamptz,
        ADD COLUMN rate_limit_per_second integer CHECK (rate_limit_per_second > 0),
        ADD CONSTRAINT webhook_endpoints_previous_secret_expiry_check
          CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL)),
        DROP CONSTRAINT webhook_endpoints_status_check,
        ADD CONSTRAINT webhook_endpoints_status_check
          CHECK (status IN ('active', 'degraded', 'disabled'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT webhook_endpoints_status_check,
        ADD CONSTRAINT webhook_endpoints_status_check CHECK (status IN ('active', 'degraded')),
        DROP CONSTRAINT webhook_endpoints_previous_secret_expiry_check,
        DROP COLUMN rate_limit_per_second,
        DROP COLUMN previous_secret_expires_at,
        DROP COLUMN previous_secret_ciphertext`);
  }
}
