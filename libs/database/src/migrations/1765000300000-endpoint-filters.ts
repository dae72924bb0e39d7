import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each endpoint's payload filter (issue 33 item 1, ADR 0046), as the client gave it. Existing rows
 * have none, which is what their registrations, recorded without the field, fold to. jsonb rather
 * than text: the engines read it as JSON, and the API validated it before it was recorded.
 */
export class EndpointFilters1765000300000 implements MigrationInterface {
  name = 'EndpointFilters1765000300000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhook_endpoints ADD COLUMN filter jsonb NULL');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhook_endpoints DROP COLUMN filter');
  }
}
