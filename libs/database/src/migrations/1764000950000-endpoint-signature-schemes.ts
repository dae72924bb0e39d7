import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How each endpoint's deliveries are signed (issue 32, ADR 0044). Existing rows get HMAC only,
 * which is what their registrations, recorded without the field, fold to.
 */
export class EndpointSignatureSchemes1764000950000 implements MigrationInterface {
  name = 'EndpointSignatureSchemes1764000950000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN signature_schemes text[] NOT NULL DEFAULT '{hmac-sha256}'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhook_endpoints DROP COLUMN signature_schemes');
  }
}
