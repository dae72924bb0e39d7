import { ApiKeysService } from '@svc/identity';
import { rebuildEndpointProjection } from '@svc/webhook-endpoints';
import { http, RunningApi, startApi } from '../support';

const body = (url = 'https://hooks.example.com/svc') => ({
  url,
  events: ['alert.*'],
  secret: 'correct-horse-battery-staple',
});

/** ADR 0018: a key sees and changes only the endpoints of its own environment. */
describe('sandbox (svc_test_) and live keys: separate endpoints (ADR 0018)', () => {
  let api: RunningApi;
  let tenantId: string;
  let live: string;
  let sandbox: string;

  beforeAll(async () => {
    api = await startApi();
    ({ tenantId, key: live } = await api.newTenantWithKey(['webhooks:manage']));
    ({ key: sandbox } = await new ApiKeysService(api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    }));
  });
  afterAll(() => api.close());

  const register = async (key: string, url?: string) => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', { key, json: body(url) });
    expect(response.status).toBe(201);
    return response.body as { id: string; url: string };
  };

  it('records the environment of the key that registered the endpoint', async () => {
    const ofLive = await register(live);
    const ofSandbox = await register(sandbox);
    const rows = await api.dataSource.query(
      'SELECT id, environment FROM webhook_endpoints WHERE id = ANY($1) ORDER BY id',
      [[ofLive.id, ofSandbox.id]],
    );
    expect(
      Object.fromEntries(
        rows.map((row: { id: string; environment: string }) => [row.id, row.environment]),
      ),
    ).toEqual({
      [ofLive.id]: 'live',
      [ofSandbox.id]: 'test',
    });
    const [event] = await api.dataSource.query(
      `SELECT data FROM events WHERE stream_id = $1 AND type = 'webhook_endpoint.registered'`,
      [ofSandbox.id],
    );
    expect(event.data.environment).toBe('test');
  });

  it.each([
    ['a sandbox key', 'live', 'sandbox'],
    ['a live key', 'sandbox', 'live'],
  ])(
    "gives %s a 404 for every route on the other environment's endpoint, and changes nothing",
    async (_, ownerName, intruderName) => {
      const owner = ownerName === 'live' ? live : sandbox;
      const intruder = intruderName === 'live' ? live : sandbox;
      const endpoint = await register(owner, 'https://owner.example.com/in');
      const as = { key: intruder };
      const path = `/v1/webhooks/${endpoint.id}`;

      const answers = [
        await http(api.baseUrl, 'GET', path, as),
        await http(api.baseUrl, 'PATCH', path, {
          ...as,
          json: { url: 'https://attacker.example.com/in' },
        }),
        await http(api.baseUrl, 'POST', `${path}/recover`, {
          ...as,
          json: { redrive_abandoned_since: '2020-01-01T00:00:00Z' },
        }),
        await http(api.baseUrl, 'GET', `${path}/attempts`, as),
        await http(api.baseUrl, 'DELETE', path, as),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(404);
        expect(answer.body.type).toBe('urn:svc:problem:not-found');
      }
      const listed = await http(api.baseUrl, 'GET', '/v1/webhooks?limit=100', as);
      expect(listed.body.data.map((e: { id: string }) => e.id)).not.toContain(endpoint.id);

      const seen = await http(api.baseUrl, 'GET', path, { key: owner });
      expect(seen.status).toBe(200);
      expect(seen.body.url).toBe('https://owner.example.com/in');
      const events = await api.dataSource.query(
        'SELECT type FROM events WHERE stream_id = $1 ORDER BY version',
        [endpoint.id],
      );
      expect(events).toEqual([{ type: 'webhook_endpoint.registered' }]);
    },
  );

  it('lists to each key only the endpoints of its environment', async () => {
    const { tenantId: ownTenant, key: ownLive } = await api.newTenantWithKey(['webhooks:manage']);
    const { key: ownSandbox } = await new ApiKeysService(api.dataSource).create({
      tenantId: ownTenant,
      scopes: ['webhooks:manage'],
      environment: 'test',
    });
    const a = await register(ownLive);
    const b = await register(ownSandbox);
    const c = await register(ownLive);
    const ids = async (key: string) =>
      (await http(api.baseUrl, 'GET', '/v1/webhooks', { key })).body.data.map(
        (e: { id: string }) => e.id,
      );
    expect(await ids(ownLive)).toEqual([a.id, c.id]);
    expect(await ids(ownSandbox)).toEqual([b.id]);
    // The owner can change and delete its own.
    const patched = await http(api.baseUrl, 'PATCH', `/v1/webhooks/${b.id}`, {
      key: ownSandbox,
      json: { events: ['incident.*'] },
    });
    expect(patched.status).toBe(200);
    expect(
      (await http(api.baseUrl, 'DELETE', `/v1/webhooks/${b.id}`, { key: ownSandbox })).status,
    ).toBe(204);
  });

  it('rebuilds the environment of every endpoint from the log', async () => {
    const kept = await register(sandbox);
    await http(api.baseUrl, 'PATCH', `/v1/webhooks/${kept.id}`, {
      key: sandbox,
      json: { url: 'https://moved.example.com/in' },
    });
    const snapshot = () => api.dataSource.query('SELECT * FROM webhook_endpoints ORDER BY id');
    const before = await snapshot();
    expect(before.some((row: { environment: string }) => row.environment === 'test')).toBe(true);
    await api.dataSource.transaction((manager) => rebuildEndpointProjection(manager));
    expect(await snapshot()).toEqual(before);
  });
});
