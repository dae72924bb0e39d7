import { http, RunningApi, startApi } from '../support';

/**
 * Who asked, and from where (issue 33 item 2, ADR 0047): every event a request appends names the
 * tenant and environment, the actor (an API key's id and hint, never the key), the request id the
 * answer carries, and the client address, taken from X-Forwarded-For only behind a trusted proxy.
 */
describe('the metadata of the events a request appends', () => {
  let direct: RunningApi;
  let behindProxy: RunningApi;

  beforeAll(async () => {
    direct = await startApi();
    behindProxy = await startApi({ API_TRUSTED_PROXIES: '127.0.0.1/32,::1/128' });
  });
  afterAll(async () => {
    await direct.close();
    await behindProxy.close();
  });

  async function registerThrough(api: RunningApi, headers: Record<string, string> = {}) {
    const { key, keyId, tenantId } = await api.newTenantWithKey(['webhooks:manage'], 'test');
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      headers,
      json: {
        url: 'https://hooks.example.com/audited',
        events: ['alert.*'],
        secret: 'command-metadata-secret-01',
      },
    });
    expect(response.status).toBe(201);
    const [event] = await api.dataSource.query<{ metadata: Record<string, any> }[]>(
      'SELECT metadata FROM events WHERE stream_id = $1 ORDER BY version LIMIT 1',
      [response.body.id],
    );
    return { key, keyId, tenantId, response, metadata: event.metadata };
  }

  it('names the tenant, the environment, the key by id and hint, the request and the address', async () => {
    const { key, keyId, tenantId, response, metadata } = await registerThrough(direct);
    expect(metadata).toEqual({
      tenant_id: tenantId,
      environment: 'test',
      actor: { kind: 'api_key', id: keyId, key_hint: key.slice(-4) },
      request_id: response.headers.get('x-request-id'),
      client_address: '127.0.0.1',
    });
    expect(JSON.stringify(metadata)).not.toContain(key);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const { metadata } = await registerThrough(direct, { 'x-forwarded-for': '203.0.113.9' });
    expect(metadata.client_address).toBe('127.0.0.1');
  });

  it('takes the rightmost untrusted hop of X-Forwarded-For behind a trusted proxy', async () => {
    const { metadata } = await registerThrough(behindProxy, {
      'x-forwarded-for': '198.51.100.7, 203.0.113.9',
    });
    expect(metadata.client_address).toBe('203.0.113.9');
  });
});
