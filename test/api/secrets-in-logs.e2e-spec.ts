import { http, RunningApi, startApi } from '../support';

describe('nothing secret reaches the logs', () => {
  const logLines: string[] = [];
  let api: RunningApi;

  beforeAll(async () => {
    api = await startApi({ LOG_LEVEL: 'trace' }, { logLines });
  });
  afterAll(() => api.close());

  it('logs requests with ids and paths, but never keys, secrets or query strings', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    const secret = 'super-secret-signing-key-0001';
    const created = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: { url: 'https://hooks.example.com/in', events: ['alert.*'], secret },
      headers: { 'x-request-id': 'logged-request-1' },
    });
    expect(created.status).toBe(201);
    await http(api.baseUrl, 'PATCH', `/v1/webhooks/${created.body.id}`, {
      key,
      json: { secret: `${secret}-rotated` },
    });
    await http(api.baseUrl, 'GET', `/v1/webhooks?api_key=${key}`);
    await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: { url: 'http://x', events: [], secret },
    });
    await http(api.baseUrl, 'GET', '/v1/tenants', { headers: { authorization: `Bearer ${key}x` } });

    const logs = logLines.join('');
    expect(logs).toContain('"request_id":"logged-request-1"');
    expect(logs).toContain('"route":"/v1/webhooks"');
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(key.slice(9));
    expect(logs).not.toContain('api_key=');
  });

  it('never logs a rotated secret, given or generated (ADR 0026)', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    const created = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: { url: 'https://hooks.example.com/in', events: ['alert.*'], secret: 'x'.repeat(16) },
    });
    const rotate = (json: unknown) =>
      http(api.baseUrl, 'POST', `/v1/webhooks/${created.body.id}/secret/rotate`, { key, json });
    const given = 'rotated-secret-given-by-client-0001';
    expect((await rotate({ secret: given, overlap_seconds: 60 })).status).toBe(200);
    const generated = await rotate({});
    expect(generated.status).toBe(200);
    const refused = 'refused\u0000rotated-secret-with-nul';
    expect((await rotate({ secret: refused })).status).toBe(400);
    expect((await rotate({ secret: 'short-rotated' })).status).toBe(400);

    const logs = logLines.join('');
    expect(logs).toContain('"route":"/v1/webhooks/:id/secret/rotate"');
    for (const secret of [given, generated.body.secret as string, 'rotated-secret-with-nul']) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toContain('short-rotated');
    expect(logs).not.toContain((generated.body.secret as string).slice('whsec_'.length));
  });
});
