import { ApiKeysService, generateApiKey } from '@svc/identity';
import { setTimeout as sleep } from 'node:timers/promises';
import { http, RunningApi, startApi } from '../support';

describe('API key authentication (spec 5.1)', () => {
  let api: RunningApi;
  let tenantReader: { tenantId: string; key: string; keyId: string };

  beforeAll(async () => {
    api = await startApi();
    tenantReader = await api.newTenantWithKey(['tenants:read']);
  });
  afterAll(() => api.close());

  const expectProblem = (
    response: { status: number; headers: Headers; body: any },
    status: number,
    type: string,
  ) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status, type });
    expect(JSON.stringify(response.body)).not.toMatch(/at .*\.(ts|js):\d+/);
  };

  it("accepts a key in the Authorization header and returns the caller's tenant in a list envelope", async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/tenants', { key: tenantReader.key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        {
          id: tenantReader.tenantId,
          name: expect.any(String),
          created_at: expect.stringMatching(/Z$/),
        },
      ],
      has_more: false,
      next_cursor: null,
    });
  });

  it('accepts the scheme name in any case (RFC 6750)', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/tenants', {
      headers: { authorization: `bearer ${tenantReader.key}` },
    });
    expect(response.status).toBe(200);
  });

  it('answers a request without credentials with 401 and a bare Bearer challenge', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/tenants');
    expectProblem(response, 401, 'urn:svc:problem:unauthenticated');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(response.body.detail).toMatch(/Authorization: Bearer/);
  });

  it.each([
    ['another scheme', (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`],
    ['a scheme without credential', () => 'Bearer'],
    ['two credentials', (key: string) => `Bearer ${key} ${key}`],
    ['a malformed key', () => 'Bearer svc_live_tooShort'],
    ['a well-formed unknown key', () => `Bearer ${generateApiKey('live')}`],
    [
      'a key of the wrong environment prefix',
      (key: string) => `Bearer ${key.replace('svc_live_', 'svc_test_')}`,
    ],
  ])('answers %s with 401 invalid_token', async (_, header) => {
    const response = await http(api.baseUrl, 'GET', '/v1/tenants', {
      headers: { authorization: header(tenantReader.key) },
    });
    expectProblem(response, 401, 'urn:svc:problem:unauthenticated');
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="svc", error="invalid_token"/,
    );
  });

  it('refuses a revoked key from the next request on', async () => {
    const { key, keyId } = await api.newTenantWithKey(['tenants:read']);
    expect((await http(api.baseUrl, 'GET', '/v1/tenants', { key })).status).toBe(200);
    expect(await new ApiKeysService(api.dataSource).revoke(keyId)).toBe(true);
    const response = await http(api.baseUrl, 'GET', '/v1/tenants', { key });
    expectProblem(response, 401, 'urn:svc:problem:unauthenticated');
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('answers a key without the needed scope with 403 insufficient_scope naming the scope', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/webhooks', { key: tenantReader.key });
    expectProblem(response, 403, 'urn:svc:problem:insufficient-scope');
    expect(response.body.required_scope).toBe('webhooks:manage');
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="svc", error="insufficient_scope", scope="webhooks:manage"/,
    );
  });

  it('refuses a key in the query string with 400, and it does not authenticate', async () => {
    for (const query of [
      `api_key=${tenantReader.key}`,
      `access_token=${tenantReader.key}`,
      `q=${tenantReader.key}`,
    ]) {
      const response = await http(api.baseUrl, 'GET', `/v1/tenants?${query}`);
      expectProblem(response, 400, 'urn:svc:problem:credentials-outside-header');
      expect(response.body.detail).toMatch(/only in the header "Authorization: Bearer/);
      expect(response.body.instance).toBe('/v1/tenants');
      expect(response.text).not.toContain(tenantReader.key);
    }
  });

  it('refuses a key in the query string even beside a valid header', async () => {
    const response = await http(api.baseUrl, 'GET', `/v1/tenants?api_key=${tenantReader.key}`, {
      key: tenantReader.key,
    });
    expectProblem(response, 400, 'urn:svc:problem:credentials-outside-header');
  });

  it('refuses a key in the request body with 400, and it does not authenticate', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      json: {
        api_key: key,
        url: 'https://hooks.example.com/in',
        events: ['alert.*'],
        secret: 'x'.repeat(20),
      },
    });
    expectProblem(response, 400, 'urn:svc:problem:credentials-outside-header');
    expect(response.body.detail).toMatch(/request body/);
    const listed = await http(api.baseUrl, 'GET', '/v1/webhooks', { key });
    expect(listed.body.data).toEqual([]);
  });

  it('accepts sandbox keys like live ones', async () => {
    const { key } = await api.newTenantWithKey(['tenants:read'], 'test');
    expect(key).toMatch(/^svc_test_/);
    expect((await http(api.baseUrl, 'GET', '/v1/tenants', { key })).status).toBe(200);
  });

  it('keeps last_used_at', async () => {
    const { key, keyId } = await api.newTenantWithKey(['tenants:read']);
    const service = new ApiKeysService(api.dataSource);
    expect((await service.find(keyId))?.lastUsedAt).toBeNull();
    await http(api.baseUrl, 'GET', '/v1/tenants', { key });
    let lastUsed: Date | null | undefined = null;
    for (let attempt = 0; attempt < 50 && !lastUsed; attempt += 1) {
      await sleep(20);
      lastUsed = (await service.find(keyId))?.lastUsedAt;
    }
    expect(lastUsed).toBeInstanceOf(Date);
    expect(Date.now() - lastUsed!.getTime()).toBeLessThan(60_000);
  });

  it('stores only a hash of each key', async () => {
    const { key, keyId } = await api.newTenantWithKey(['tenants:read']);
    const [row] = await api.dataSource.query('SELECT * FROM api_keys WHERE id = $1', [keyId]);
    expect(JSON.stringify(row)).not.toContain(key);
    expect(JSON.stringify(row)).not.toContain(key.slice(9, 30));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
