import { MigrationInterface, QueryRunner } from 'typeorm';
import { buildPartitionedIndex } from './build-partitioned-index';

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
    await buildPartitionedIndex(runner, {
      table: 'events',
      name: 'events_audit_idx',
      definition: `((metadata->>'tenant_id'), position DESC) WHERE type IN (${types})`,
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    // Dropping the parent's index drops the partitions' attached to it.
    await runner.query('DROP INDEX IF EXISTS events_audit_idx');
  }
}
