import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Portal sessions (issue 31, ADR 0042): the one-time links a platform mints for its tenant's
 * console, and the sessions they open. Both tokens are stored only as SHA-256 digests, each
 * found by a unique index; `expires_at` is indexed for the purge of long-expired rows.
 *
 * Two tables rather than one row with both digests: a link and a session have different
 * lifetimes and a session row exists only once its link was used, so neither has columns that
 * stay empty for half its life. A session keeps its own copy of the tenant, environment and
 * read-only flag, so that authenticating a request reads one row by one index.
 */
export class PortalSessions1764000800000 implements MigrationInterface {
  name = 'PortalSessions1764000800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE portal_links (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id),
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        token_hash text NOT NULL,
        read_only boolean NOT NULL,
        return_url text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX portal_links_token_hash_key ON portal_links (token_hash)`,
    );
    await runner.query(`CREATE INDEX portal_links_expiry_idx ON portal_links (expires_at)`);
    await runner.query(`
      CREATE TABLE portal_sessions (
        id text PRIMARY KEY,
        link_id text REFERENCES portal_links (id) ON DELETE SET NULL,
        tenant_id text NOT NULL REFERENCES tenants (id),
        environment text NOT NULL CHECK (environment IN ('live', 'test')),
        token_hash text NOT NULL,
        read_only boolean NOT NULL,
        return_url text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        ended_at timestamptz
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX portal_sessions_token_hash_key ON portal_sessions (token_hash)`,
    );
    await runner.query(`CREATE INDEX portal_sessions_expiry_idx ON portal_sessions (expires_at)`);
    await runner.query(`CREATE INDEX portal_sessions_link_idx ON portal_sessions (link_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE portal_sessions');
    await runner.query('DROP TABLE portal_links');
  }
}
