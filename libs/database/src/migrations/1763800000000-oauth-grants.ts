import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The authorization server's state: grants (one per consent, the refresh-token family), their
 * single-use authorization codes and rotating refresh tokens (stored only as SHA-256 hashes),
 * sign-in sessions (hashed too) and the failed-login throttle. What happens to a grant is also
 * appended to the event log, in the same transaction (ADR 0014).
 */
export class OAuthGrants1763800000000 implements MigrationInterface {
  name = 'OAuthGrants1763800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE oauth_grants (
        id text PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id),
        user_id text NOT NULL REFERENCES users (id),
        client_id text NOT NULL REFERENCES oauth_clients (id),
        scopes text[] NOT NULL,
        stream_version integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        revoked_reason text
      )`);
    await runner.query(`CREATE INDEX oauth_grants_user_idx ON oauth_grants (user_id)`);
    await runner.query(`
      CREATE TABLE oauth_authorization_codes (
        code_hash text PRIMARY KEY,
        grant_id text NOT NULL REFERENCES oauth_grants (id),
        redirect_uri text NOT NULL,
        code_challenge text NOT NULL,
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX oauth_authorization_codes_expiry_idx ON oauth_authorization_codes (expires_at)`,
    );
    await runner.query(`
      CREATE TABLE oauth_refresh_tokens (
        id text PRIMARY KEY,
        token_hash text NOT NULL UNIQUE,
        grant_id text NOT NULL REFERENCES oauth_grants (id),
        issued_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz
      )`);
    await runner.query(
      `CREATE INDEX oauth_refresh_tokens_grant_idx ON oauth_refresh_tokens (grant_id)`,
    );
    await runner.query(`
      CREATE TABLE auth_sessions (
        id_hash text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX auth_sessions_expiry_idx ON auth_sessions (expires_at)`);
    await runner.query(`
      CREATE TABLE login_throttle (
        key text PRIMARY KEY,
        failures integer NOT NULL,
        window_started_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE login_throttle');
    await runner.query('DROP TABLE auth_sessions');
    await runner.query('DROP TABLE oauth_refresh_tokens');
    await runner.query('DROP TABLE oauth_authorization_codes');
    await runner.query('DROP TABLE oauth_grants');
  }
}
