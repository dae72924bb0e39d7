import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event types of the audit trail as this migration indexes them (ADR 0047). Written out, not
 * imported: a migration keeps the schema it made whatever the code becomes. Adding an audit action
 * takes a migration that rebuilds the index with the new list (apps/api's audit-entry.spec.ts
 * fails until the lists agree).
 */
export const AUDIT_TRAIL_INDEXED_TYPES = [
  'webhook_endpoint.registered',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.test_requested',
  'webhook_endpoint.replay_requested',
  'webhook_endpoint.recovery_requested',
  'portal_session.minted',
  'api_key.created',
  'api_key.revoked',
] as const;

/**
 * GET /v1/audit-events reads one tenant's audit events newest first: one range of this partial
 * index, so that neither another tenant's rows nor the log's deliveries are read.
 *
 * Built without stopping writers, as deliveries_undelivered_idx (1764000850000): the index ON
 * ONLY the parent, each partition's CONCURRENTLY under the name addPartition gives the copies it
 * makes for partitions added later (`<partition>_audit_idx`), then attached. Outside a
 * transaction, and every step may be run again after a failure.
 */
export class AuditTrailIndex1765000400000 implements MigrationInterface {
  name = 'AuditTrailIndex1765000400000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    const types = AUDIT_TRAIL_INDEXED_TYPES.map((type) => `'${type}'`).join(', ');
    const definition = `((metadata->>'tenant_id'), position DESC) WHERE type IN (${types})`;
    await runner.query(`CREATE INDEX IF NOT EXISTS events_audit_idx ON ONLY events ${definition}`);
    const partitions = await runner.manager.query<{ name: string }[]>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`,
    );
    for (const { name } of partitions) {
      await buildOnPartition(runner, name, definition);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    // Dropping the parent's index drops the partitions' attached to it.
    await runner.query('DROP INDEX IF EXISTS events_audit_idx');
  }
}

async function buildOnPartition(
  runner: QueryRunner,
  partition: string,
  definition: string,
): Promise<void> {
  const own = `${partition}_audit_idx`;
  // A build that failed half-way leaves an invalid index behind: it is made again.
  const [invalid] = await runner.manager.query<unknown[]>(
    `SELECT 1 FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
      WHERE c.relname = $1 AND NOT x.indisvalid`,
    [own],
  );
  if (invalid) {
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${own}"`);
  }
  await runner.query(
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${own}" ON "${partition}" ${definition}`,
  );
  const [attached] = await runner.manager.query<unknown[]>(
    `SELECT 1 FROM pg_inherits WHERE inhrelid = $1::regclass AND inhparent = 'events_audit_idx'::regclass`,
    [own],
  );
  if (!attached) {
    await runner.query(`ALTER INDEX events_audit_idx ATTACH PARTITION "${own}"`);
  }
}
