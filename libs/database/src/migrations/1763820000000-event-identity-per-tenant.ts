import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event is identified by its tenant and its id: two tenants' publishers may choose the same
 * `evt_` id, and neither may ever receive the other's body. The stored payloads and the
 * one-delivery-per-endpoint guard are keyed by (tenant_id, event_id) from here on. Existing rows
 * keep their keys: a payload was stored once per id, by its first publisher, which is the tenant
 * the row names.
 */
export class EventIdentityPerTenant1763820000000 implements MigrationInterface {
  name = 'EventIdentityPerTenant1763820000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_pkey');
    await runner.query('ALTER TABLE inbound_events ADD PRIMARY KEY (tenant_id, event_id)');
    await runner.query(
      'CREATE UNIQUE INDEX deliveries_tenant_event_endpoint_key ON deliveries (tenant_id, event_id, endpoint_id)',
    );
    // Both are prefixes or weaker forms of the new key.
    await runner.query('DROP INDEX deliveries_event_endpoint_key');
    await runner.query('DROP INDEX deliveries_tenant_event_idx');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE INDEX deliveries_tenant_event_idx ON deliveries (tenant_id, event_id)',
    );
    await runner.query(
      'CREATE UNIQUE INDEX deliveries_event_endpoint_key ON deliveries (event_id, endpoint_id)',
    );
    await runner.query('DROP INDEX deliveries_tenant_event_endpoint_key');
    await runner.query('ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_pkey');
    await runner.query('ALTER TABLE inbound_events ADD PRIMARY KEY (event_id)');
  }
}
