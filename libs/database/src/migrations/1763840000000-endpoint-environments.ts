import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every webhook endpoint belongs to one environment, `live` or `test`, taken from the key that
 * registered it (ADR 0018). Endpoints registered before this change are live: their registration
 * events name no environment, so the fold (and `svc projections rebuild`) makes them live too.
 */
export class EndpointEnvironments1763840000000 implements MigrationInterface {
  name = 'EndpointEnvironments1763840000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE webhook_endpoints ADD COLUMN environment text NOT NULL DEFAULT 'live' CHECK (environment IN ('live', 'test'))`,
    );
    await runner.query(
      'CREATE INDEX webhook_endpoints_tenant_environment_idx ON webhook_endpoints (tenant_id, environment, id)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX webhook_endpoints_tenant_environment_idx');
    await runner.query('ALTER TABLE webhook_endpoints DROP COLUMN environment');
  }
}
