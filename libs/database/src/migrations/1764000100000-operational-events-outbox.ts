import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transactional outbox of operational events (ADR 0030). A row trigger on the log copies
 * every event that raises one (an endpoint degraded, reactivated or disabled; a delivery
 * abandoned) into `operational_events_outbox` in the transaction that appends it, whichever
 * process appends it; the engines' relay publishes each row to JetStream and only then deletes
 * it, so an event committed is published even if its writer dies at once.
 *
 * The trigger is declared on the partitioned `events` table: PostgreSQL clones it onto every
 * partition, those attached later included (ADR 0023's partitions are made, then attached). Its
 * WHEN clause is evaluated for each row inserted before any function runs, so the log's other
 * events (nearly all of them: attempts that did not abandon, deferrals, registrations ...) cost a
 * comparison of the type and nothing more. The types are spelled out as they are today: a
 * migration describes the schema at one moment, and a new source of operational events is a new
 * migration.
 *
 * A future migration that copies rows of the log into `events` again (a re-partitioning) must
 * disable this trigger for the copy, or it would publish old operational events a second time.
 */
export class OperationalEventsOutbox1764000100000 implements MigrationInterface {
  name = 'OperationalEventsOutbox1764000100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE operational_events_outbox (
        stream_id text NOT NULL,
        version integer NOT NULL,
        position bigint NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL,
        recorded_at timestamptz NOT NULL,
        publish_after timestamptz NOT NULL DEFAULT now(),
        failures integer NOT NULL DEFAULT 0,
        PRIMARY KEY (stream_id, version)
      )`);
    await runner.query(
      'CREATE INDEX operational_events_outbox_due_idx ON operational_events_outbox (publish_after, position)',
    );
    await runner.query(`
      CREATE FUNCTION svc_operational_events_outbox() RETURNS trigger
        LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO operational_events_outbox
          (stream_id, version, position, type, data, metadata, recorded_at)
        VALUES
          (NEW.stream_id, NEW.version, NEW.position, NEW.type, NEW.data, NEW.metadata, NEW.recorded_at);
        RETURN NULL;
      END $$`);
    await runner.query(`
      CREATE TRIGGER events_operational_outbox AFTER INSERT ON events
        FOR EACH ROW
        WHEN (
          NEW.type IN ('webhook_endpoint.degraded', 'webhook_endpoint.reactivated', 'webhook_endpoint.disabled')
          OR (NEW.type = 'delivery.attempted' AND NEW.data->>'abandoned' = 'true')
        )
        EXECUTE FUNCTION svc_operational_events_outbox()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TRIGGER events_operational_outbox ON events');
    await runner.query('DROP FUNCTION svc_operational_events_outbox');
    await runner.query('DROP TABLE operational_events_outbox');
  }
}
