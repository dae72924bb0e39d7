import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The registry of hot-tenant lanes (ADR 0032): one row per tenant whose events are, for now, read
 * by a JetStream consumer of their own (`consumer_name`, filtered on the tenant's subjects, from
 * stream sequence `start_seq`) instead of the main delivery consumer, which acknowledges them
 * unhandled while the lane covers them. `end_seq` and `closing_since` are set when the lane is
 * closed: the main consumer handles the tenant's events after `end_seq` again, and the row goes
 * once the grace period is over and the lane has nothing left. The engines change it in short
 * transactions (one row per tenant: two engines cannot open two lanes for one tenant) and read it
 * every few seconds. Not delivery data (ADR 0023): a handful of rows at any time.
 */
export class IntakeLanes1764000500000 implements MigrationInterface {
  name = 'IntakeLanes1764000500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE intake_lanes (
        tenant_id text PRIMARY KEY,
        consumer_name text NOT NULL UNIQUE,
        start_seq bigint NOT NULL CHECK (start_seq > 0),
        end_seq bigint CHECK (end_seq IS NULL OR end_seq >= start_seq - 1),
        closing_since timestamptz,
        opened_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((end_seq IS NULL) = (closing_since IS NULL))
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE intake_lanes');
  }
}
