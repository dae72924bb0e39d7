import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shared counters of the per-endpoint rate limit (ADR 0028): one row per rate-limited
 * endpoint and one-second window, counting the tokens the engines took in it. UNLOGGED: the
 * counts are worth nothing a second later, so they need no write-ahead log (cheaper writes, and
 * a crash or a failover simply empties the table, which costs at most one window's excess).
 * Not delivery data (ADR 0023): engines delete windows older than a few seconds as they go.
 */
export class EndpointRateWindows1764000300000 implements MigrationInterface {
  name = 'EndpointRateWindows1764000300000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE UNLOGGED TABLE endpoint_rate_windows (
        endpoint_id text NOT NULL,
        window_start timestamptz NOT NULL,
        taken integer NOT NULL CHECK (taken > 0),
        PRIMARY KEY (endpoint_id, window_start)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE endpoint_rate_windows');
  }
}
