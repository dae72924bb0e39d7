import { migrateDatabase } from '@svc/database';
import { Client } from 'pg';
import { resolve } from 'node:path';
import { http, RunningApi, startApi } from '@svc/testing';
import { PrivatePostgres, startPrivatePostgres } from '../support/private-postgres';

const TLS = resolve(__dirname, '../fixtures/tls');
const CA = `${TLS}/ca.pem`;

/**
 * PostgreSQL over TLS as operators configure it (docs/configuration.md): `sslmode` and
 * `sslrootcert` in DATABASE_URL, read by pg as libpq reads them. Against a PostgreSQL of the
 * suite's own that serves TLS with the test CA's certificate for 127.0.0.1.
 */
describe('PostgreSQL over TLS (sslmode=verify-full, sslrootcert)', () => {
  let postgres: PrivatePostgres;
  let api: RunningApi;
  const verified = () =>
    postgres.url({ database: 'svc', query: `sslmode=verify-full&sslrootcert=${CA}` });

  beforeAll(async () => {
    postgres = await startPrivatePostgres({
      tls: { certFile: `${TLS}/server.pem`, keyFile: `${TLS}/server-key.pem` },
    });
    const admin = new Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE svc');
    await admin.end();
    await migrateDatabase(verified());
    api = await startApi({}, { databaseUrl: verified() });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await postgres?.stop();
  });

  it('migrates and serves with every connection of the app encrypted', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    expect((await http(api.baseUrl, 'GET', '/v1/webhooks', { key })).status).toBe(200);
    expect((await http(api.managementUrl, 'GET', '/readyz')).status).toBe(200);

    const admin = new Client({ connectionString: postgres.url({ query: 'sslmode=disable' }) });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ ssl: boolean }>(
        `SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
          WHERE a.datname = 'svc' AND a.backend_type = 'client backend'`,
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => row.ssl)).toBe(true);
    } finally {
      await admin.end();
    }
  });

  it('refuses the server when its CA is not the one given (verification stays on)', async () => {
    const client = new Client({
      connectionString: postgres.url({ database: 'svc', query: 'sslmode=verify-full' }),
    });
    await expect(client.connect()).rejects.toThrow(/self[- ]signed|certificate/i);
    await client.end().catch(() => undefined);
  });

  it('refuses a PostgreSQL that offers no TLS rather than falling back to plain text', async () => {
    const client = new Client({
      connectionString: `postgres://postgres@127.0.0.1:5432/postgres?sslmode=verify-full&sslrootcert=${CA}`,
    });
    await expect(client.connect()).rejects.toThrow(/SSL|TLS|certificate/i);
    await client.end().catch(() => undefined);
  });
});
