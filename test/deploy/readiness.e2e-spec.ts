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
