import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delivery engine's tables: the payloads it received, the delivery and attempt projections
 * of the log, and the schedule of due attempts that the engines claim.
 */
export class Deliveries1763760000000 implements MigrationInterface {
  name = 'Deliveries1763760000000';

  async up(runner: QueryRunner): Promise<void> {
    // The envelope exactly as published: retries send (and sign) the same bytes as the first try,
    // and join the publisher's trace through the stored trace context.
    await runner.query(`
      CREATE TABLE inbound_events (
        event_id text PRIMARY KEY,
        tenant_id text NOT NULL,
        type text NOT NULL,
        body text NOT NULL,
        trace_context jsonb,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE deliveries (
        id text PRIMARY KEY,
        event_id text NOT NULL,
        endpoint_id text NOT NULL,
        tenant_id text NOT NULL,
        event_type text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'abandoned', 'cancelled')),
        attempts integer NOT NULL,
        run_attempts integer NOT NULL,
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        version integer NOT NULL
      )`);
    // One delivery per (event, endpoint): the guard against delivering twice after a success.
    await runner.query(
      `CREATE UNIQUE INDEX deliveries_event_endpoint_key ON deliveries (event_id, endpoint_id)`,
    );
    await runner.query(
      `CREATE INDEX deliveries_tenant_event_idx ON deliveries (tenant_id, event_id)`,
    );
    await runner.query(
      `CREATE INDEX deliveries_abandoned_idx ON deliveries (endpoint_id, completed_at) WHERE status = 'abandoned'`,
    );
    await runner.query(`
      CREATE TABLE delivery_attempts (
        position bigint PRIMARY KEY,
        delivery_id text NOT NULL,
        tenant_id text NOT NULL,
        endpoint_id text NOT NULL,
        event_id text NOT NULL,
        attempt integer NOT NULL,
        succeeded boolean NOT NULL,
        status_code integer,
        error_kind text,
        error_message text,
        latency_ms integer NOT NULL,
        response_excerpt text,
        attempted_at timestamptz NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX delivery_attempts_endpoint_idx ON delivery_attempts (endpoint_id, position DESC)`,
    );
    await runner.query(`
      CREATE TABLE delivery_schedule (
        delivery_id text PRIMARY KEY,
        tenant_id text NOT NULL,
        endpoint_id text NOT NULL,
        due_at timestamptz NOT NULL,
        claimed_until timestamptz
      )`);
    await runner.query(`CREATE INDEX delivery_schedule_due_idx ON delivery_schedule (due_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE delivery_schedule');
    await runner.query('DROP TABLE delivery_attempts');
    await runner.query('DROP TABLE deliveries');
    await runner.query('DROP TABLE inbound_events');
  }
}
