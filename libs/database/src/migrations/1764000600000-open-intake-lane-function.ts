import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Opening a hot-tenant lane (ADR 0032) in one round trip: the same steps as the transaction it
 * replaces (the opening lock, the tenant's row if it has one, the count against the most lanes
 * allowed, the insert), in a function the engine calls in one autocommitted statement. A lane is
 * opened while a burst keeps the engine's event loop busiest, and each of the transaction's six
 * round trips waited for it: 100 to 300 ms in all, while every other tenant's events waited
 * behind the burst. In a VOLATILE function each statement sees what was committed before it ran,
 * so after the lock it sees another engine's lane opened meanwhile, as the transaction did.
 * Returns the tenant's lane and whether this call opened it, or no row when `max_lanes` are open.
 */
export class OpenIntakeLaneFunction1764000600000 implements MigrationInterface {
  name = 'OpenIntakeLaneFunction1764000600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION open_intake_lane(
        p_tenant_id text, p_consumer_name text, p_start_seq bigint, p_max_lanes int, p_lock bigint
      ) RETURNS TABLE (
        tenant_id text, consumer_name text, start_seq bigint, end_seq bigint,
        closing_since timestamptz, opened boolean
      ) LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(p_lock);
        RETURN QUERY
          SELECT l.tenant_id, l.consumer_name, l.start_seq, l.end_seq, l.closing_since, false
            FROM intake_lanes l WHERE l.tenant_id = p_tenant_id;
        IF FOUND OR (SELECT count(*) FROM intake_lanes) >= p_max_lanes THEN
          RETURN;
        END IF;
        RETURN QUERY
          INSERT INTO intake_lanes AS l (tenant_id, consumer_name, start_seq)
          VALUES (p_tenant_id, p_consumer_name, p_start_seq)
          RETURNING l.tenant_id, l.consumer_name, l.start_seq, l.end_seq, l.closing_since, true;
      END
      $$`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP FUNCTION open_intake_lane(text, text, bigint, int, bigint)');
  }
}
