import { MigrationInterface, QueryRunner } from 'typeorm';

/** People who sign in to the authorization server, and the public OAuth clients. */
export class UsersAndClients1763780000000 implements MigrationInterface {
  name = 'UsersAndClients1763780000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id),
        email text NOT NULL CHECK (email = lower(email)),
        password_hash text NOT NULL,
        allowed_scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);
    await runner.query(`CREATE INDEX users_tenant_idx ON users (tenant_id)`);
    await runner.query(`
      CREATE TABLE oauth_clients (
        id text PRIMARY KEY,
        name text NOT NULL,
        redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE oauth_clients');
    await runner.query('DROP TABLE users');
  }
}
