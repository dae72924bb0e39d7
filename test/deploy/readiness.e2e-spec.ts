import { dataSourceOptions } from '@svc/database';
import { Client } from 'pg';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { http, RunningApp, startApi, startAuth, startDelivery } from '@svc/testing';
import { freePort } from '../support/free-port';

/**
 * Issue 11, item 4: readiness reflects what each app needs to serve (ADR 0020). The API and the
 * authorization server keep serving without NATS, so a NATS outage must not take them out of the
 * Service's endpoints; the delivery engine cannot work without NATS and its consumer.
 */
describe('/readyz with NATS unreachable', () => {
  let apps: RunningApp[] = [];
  let closedPort: number;

  beforeAll(async () => {
    closedPort = await freePort();
    const nats = { NATS_URL: `nats://127.0.0.1:${closedPort}` };
    apps = await Promise.all([startApi(nats), startAuth(nats), startDelivery(nats)]);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  it('the API and auth are ready on PostgreSQL alone', async () => {
    for (const app of apps.filter((running) => running.name !== 'delivery')) {
      const { status, text } = await http(app.managementUrl, 'GET', '/readyz');
      expect({ app: app.name, status }).toEqual({ app: app.name, status: 200 });
      expect(text).not.toMatch(/nats/i);
    }
  });

  it('the delivery engine is not ready: it needs NATS and its consumer', async () => {
    const engine = apps.find((running) => running.name === 'delivery')!;
    const { status, text } = await http(engine.managementUrl, 'GET', '/readyz');
    expect(status).toBe(503);
    expect(text).toMatch(/nats/);
    expect(text).toMatch(/jetstream-consumer/);
    expect((await http(engine.managementUrl, 'GET', '/healthz')).status).toBe(200);
  });
});

/**
 * PostgreSQL TLS is set in DATABASE_URL, as libpq and pg read it: `sslmode` and `sslrootcert`
 * (README, "Configuration"). No TLS PostgreSQL runs here, so this checks that the settings reach
 * pg's connection parameters through the apps' data-source options, and that verify-full really
 * insists on TLS against a server without it rather than falling back to plain text.
 */
describe('PostgreSQL TLS settings in DATABASE_URL', () => {
  const CA = resolve(__dirname, '../fixtures/tls/ca.pem');
  const url = `postgres://svc@db.example.internal:5432/svc?sslmode=verify-full&sslrootcert=${CA}`;

  it('reach pg as TLS with the CA file and certificate verification on', () => {
    const options = dataSourceOptions({ url, poolSize: 2 }) as { url?: string; ssl?: unknown };
    expect(options.url).toBe(url);
    expect(options.ssl).toBeUndefined(); // nothing overrides what the URL says
    const client = new Client({ connectionString: options.url });
    const ssl = (client as unknown as { connectionParameters: { ssl: Record<string, unknown> } })
      .connectionParameters.ssl;
    expect(ssl).toMatchObject({ ca: readFileSync(CA, 'utf8') });
    expect(ssl.rejectUnauthorized).not.toBe(false);
  });

  it('sslmode=verify-full refuses a PostgreSQL that offers no TLS', async () => {
    const client = new Client({
      connectionString: `postgres://postgres@127.0.0.1:5432/postgres?sslmode=verify-full&sslrootcert=${CA}`,
    });
    await expect(client.connect()).rejects.toThrow(/SSL|TLS|certificate/i);
    await client.end().catch(() => undefined);
  });
});
