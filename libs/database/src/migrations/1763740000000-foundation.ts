import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants, API keys, the append-only event log and the webhook endpoint projection. */
export class Foundation1763740000000 implements MigrationInterface {
  name = 'Foundation1763740000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE tenants (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id),
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        key_hash text NOT NULL,
        key_hint text NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        last_used_at timestamptz
      )`);
    await runner.query(`CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash)`);
    await runner.query(`CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id)`);
    await runner.query(`
      CREATE TABLE events (
        position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        stream_id text NOT NULL,
        version integer NOT NULL CHECK (version > 0),
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX events_stream_version_key ON events (stream_id, version)`,
    );
    await runner.query(`CREATE INDEX events_type_position_idx ON events (type, position)`);
    await runner.query(`
      CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'the event log is append-only: % is not allowed', TG_OP;
      END $$`);
    await runner.query(`
      CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()`);
    await runner.query(`
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        tenant_id text NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        secret_ciphertext text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'degraded')),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version integer NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX webhook_endpoints_tenant_id_idx ON webhook_endpoints (tenant_id, id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE webhook_endpoints');
    await runner.query('DROP TABLE events');
    await runner.query('DROP FUNCTION events_are_append_only');
    await runner.query('DROP TABLE api_keys');
    await runner.query('DROP TABLE tenants');
  }
}
