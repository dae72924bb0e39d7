import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { HttpSender } from '../../apps/delivery/src/dispatch/http-sender';
import { http, RunningApi, startApi } from '../support';

/**
 * Issue 30, finding 3: IPv4-compatible IPv6 literals (::/96, which the IP library does not name)
 * were registered and connected to. ADR 0039: only global unicast is reached, at registration and
 * at connect time, whatever the form of the address.
 */
const ADDRESS_FORMS = [
  'https://[::a9fe:a9fe]/latest/meta-data/',
  'https://[::a00:1]/',
  'https://[::7f00:1]/',
  'https://[::169.254.169.254]/latest/meta-data/',
  'https://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
  'https://[2002:a9fe:a9fe::]/latest/meta-data/',
  'https://[2001:db8::1]/',
];

describe('SSRF defence against other forms of an address (issue 30, ADR 0039)', () => {
  let api: RunningApi;
  let key: string;

  beforeAll(async () => {
    // The test configuration's allow-list (127.0.0.0/8, ::1/128) stays: it must not reach
    // loopback written another way.
    api = await startApi();
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
  });
  afterAll(() => api.close());

  it.each(ADDRESS_FORMS)(
    'refuses to register %s with a 400 problem naming the url',
    async (url) => {
      const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
        key,
        json: { url, events: ['alert.created'], secret: 'correct-horse-battery-staple' },
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.type).toBe('urn:svc:problem:invalid-request');
      expect(response.body.errors).toEqual([
        { field: 'url', detail: expect.stringMatching(/must not point to a private/) },
      ]);
    },
  );

  it('refuses to move an endpoint to such an address', async () => {
    const created = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/in',
        events: ['alert.created'],
        secret: 'correct-horse-battery-staple',
      },
    });
    expect(created.status).toBe(201);
    const response = await http(api.baseUrl, 'PATCH', `/v1/webhooks/${created.body.id}`, {
      key,
      json: { url: 'https://[::a9fe:a9fe]/latest/meta-data/' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('url');
    const read = await http(api.baseUrl, 'GET', `/v1/webhooks/${created.body.id}`, { key });
    expect(read.body.url).toBe('https://hooks.example.com/in');
  });

  it.each(ADDRESS_FORMS)(
    'records "blocked address" at connect time for %s, without trying to connect',
    async (url) => {
      const blocked: string[] = [];
      const sender = new HttpSender({
        timeoutMs: 2000,
        allowList: new PrivateNetworkAllowList(['127.0.0.0/8', '::1/128']),
        connectionsPerOrigin: 1,
        onBlockedAddress: (report) => void blocked.push(report.host),
      });
      try {
        const result = await sender.post(url, '{}', {});
        // Before the fix: `connect EHOSTUNREACH ::a9fe:a9fe:443`, an attempt at the address.
        expect(result).toMatchObject({
          succeeded: false,
          statusCode: null,
          errorKind: 'blocked_address',
          errorMessage: 'blocked address',
        });
        expect(blocked).toHaveLength(1);
      } finally {
        await sender.close();
      }
    },
  );
});
