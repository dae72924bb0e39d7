import { SecretCipher } from '@svc/secrets';
import { rebuildEndpointProjection } from '@svc/webhook-endpoints';
import { http, RunningApi, startApi } from '../support';

const validBody = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/svc',
  events: ['alert.created', 'incident.*'],
  secret: 'correct-horse-battery-staple',
  ...overrides,
});

describe('webhook endpoints (spec 2.1, 4.1; DESIGN decisions)', () => {
  let api: RunningApi;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    api = await startApi();
    ({ key, tenantId } = await api.newTenantWithKey(['webhooks:manage']));
  });
  afterAll(() => api.close());

  const register = (body: unknown, as = key) =>
    http(api.baseUrl, 'POST', '/v1/webhooks', { key: as, json: body });

  describe('POST /v1/webhooks', () => {
    it('answers 201 with a Location and exactly id, url, events, status, created_at, signature_schemes, ordering, filter, auth, retry_schedule and timeout_seconds', async () => {
      const before = Date.now();
      const response = await register(validBody());
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(response.body).sort()).toEqual([
        'auth',
        'created_at',
        'events',
        'filter',
        'id',
        'ordering',
        'retry_schedule',
        'signature_schemes',
        'status',
        'timeout_seconds',
        'url',
      ]);
      expect(response.body).toEqual({
        id: expect.stringMatching(/^wh_[0-9a-z]{26}$/),
        url: 'https://hooks.example.com/svc',
        events: ['alert.created', 'incident.*'],
        status: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        signature_schemes: ['hmac-sha256'],
        ordering: 'unordered',
        filter: null,
        auth: null,
        retry_schedule: null,
        timeout_seconds: null,
      });
      expect(Date.parse(response.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(response.headers.get('location')).toBe(`/v1/webhooks/${response.body.id}`);
      expect(response.text).not.toContain('correct-horse-battery-staple');
    });

    it('keeps the secret encrypted at rest, in the projection and in the log', async () => {
      const secret = 'a-secret-that-must-never-leak-42';
      const { body } = await register(validBody({ secret }));
      const [row] = await api.dataSource.query('SELECT * FROM webhook_endpoints WHERE id = $1', [
        body.id,
      ]);
      const events = await api.dataSource.query('SELECT * FROM events WHERE stream_id = $1', [
        body.id,
      ]);
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(JSON.stringify(events)).not.toContain(secret);
      const cipher = new SecretCipher(api.config.secrets.encryptionKeys);
      expect(cipher.decrypt(row.secret_ciphertext, body.id)).toBe(secret);
    });

    it('records the registration as the first event of the endpoint stream', async () => {
      const { body } = await register(validBody());
      const events = await api.dataSource.query(
        'SELECT type, version, data, metadata FROM events WHERE stream_id = $1 ORDER BY version',
        [body.id],
      );
      expect(events).toEqual([
        {
          type: 'webhook_endpoint.registered',
          version: 1,
          data: expect.objectContaining({
            endpoint_id: body.id,
            tenant_id: tenantId,
            status: 'active',
          }),
          metadata: expect.objectContaining({
            tenant_id: tenantId,
            request_id: expect.any(String),
          }),
        },
      ]);
    });

    it.each([
      ['url is missing', { url: undefined }, 'url', /required/],
      ['url is not a string', { url: 42 }, 'url', /string/],
      ['url is http', { url: 'http://hooks.example.com/' }, 'url', /https/],
      ['url is relative', { url: '/hooks' }, 'url', /absolute URL/],
      [
        'url has user information',
        { url: 'https://u:p@hooks.example.com/' },
        'url',
        /user information/,
      ],
      ['url is a private address', { url: 'https://10.1.2.3/in' }, 'url', /private/],
      ['url is the metadata service', { url: 'https://169.254.169.254/latest' }, 'url', /private/],
      ['url is too long', { url: `https://hooks.example.com/${'a'.repeat(2050)}` }, 'url', /2048/],
      ['events is missing', { events: undefined }, 'events', /required/],
      ['events is empty', { events: [] }, 'events', /at least one/],
      ['events is not an array', { events: 'alert.created' }, 'events', /array/],
      [
        'events holds an unknown type',
        { events: ['alert.created', 'alert.exploded'] },
        'events',
        /unknown event types: alert\.exploded/,
      ],
      ['events repeats a type', { events: ['alert.*', 'alert.*'] }, 'events', /repeated/],
      ['secret is missing', { secret: undefined }, 'secret', /required/],
      ['secret is short', { secret: 'short' }, 'secret', /16 to 256/],
      ['secret is long', { secret: 's'.repeat(257) }, 'secret', /16 to 256/],
      ['secret is not printable ASCII', { secret: 'sixteen-chars-é-plus' }, 'secret', /printable/],
      ['an unknown field is sent', { colour: 'blue' }, 'colour', /should not exist/],
    ])('answers 400 naming the field when %s', async (_, overrides, field, detail) => {
      const response = await register(validBody(overrides));
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.type).toBe('urn:svc:problem:invalid-request');
      expect(response.body.errors).toEqual(
        expect.arrayContaining([{ field, detail: expect.stringMatching(detail) }]),
      );
    });

    it('reports the first broken rule of a field, not every rule it then also breaks', async () => {
      const response = await register(validBody({ url: undefined }));
      expect(response.body.errors).toEqual([{ field: 'url', detail: 'is required' }]);
    });

    it.each([['null'], ['"a string"'], ['[1, 2]'], ['42']])(
      'refuses the JSON body %s as not an object',
      async (body) => {
        const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
          key,
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status).toBe(400);
        expect(response.body.errors).toEqual([
          { field: '(body)', detail: 'must be a JSON object' },
        ]);
      },
    );

    it('reports every invalid field at once and stores nothing', async () => {
      const { tenantId: otherTenant, key: otherKey } = await api.newTenantWithKey([
        'webhooks:manage',
      ]);
      const response = await register({ url: 'ftp://x', events: ['nope'], secret: 'x' }, otherKey);
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { field: string }) => error.field).sort()).toEqual([
        'events',
        'secret',
        'url',
      ]);
      const rows = await api.dataSource.query(
        'SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = $1',
        [otherTenant],
      );
      expect(rows[0].n).toBe(0);
    });

    it('accepts loopback receivers only because the test configuration allows them', async () => {
      expect((await register(validBody({ url: 'https://127.0.0.1:9443/in' }))).status).toBe(201);
      const strict = await startApi({ WEBHOOK_ALLOWED_PRIVATE_CIDRS: '' });
      try {
        const { key: strictKey } = await strict.newTenantWithKey(['webhooks:manage']);
        for (const url of [
          'https://127.0.0.1:9443/in',
          'https://localhost/in',
          'https://[::1]/in',
        ]) {
          const response = await http(strict.baseUrl, 'POST', '/v1/webhooks', {
            key: strictKey,
            json: validBody({ url }),
          });
          expect(response.status).toBe(400);
          expect(response.body.errors[0].field).toBe('url');
        }
      } finally {
        await strict.close();
      }
    });
  });

  describe('reading, listing, updating and deleting', () => {
    it('reads one endpoint as it was registered', async () => {
      const { body: created } = await register(validBody());
      const response = await http(api.baseUrl, 'GET', `/v1/webhooks/${created.id}`, { key });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(created);
    });

    it('pages through the list with cursors, in order of registration', async () => {
      const { key: listKey } = await api.newTenantWithKey(['webhooks:manage']);
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        ids.push(
          (await register(validBody({ url: `https://hooks.example.com/${i}` }), listKey)).body.id,
        );
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
        const page = await http(api.baseUrl, 'GET', `/v1/webhooks${query}`, { key: listKey });
        expect(page.status).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.data.map((endpoint: { id: string }) => endpoint.id));
        expect(page.body.has_more).toBe(page.body.next_cursor !== null);
        cursor = page.body.next_cursor;
        pages += 1;
      } while (cursor);
      expect(seen).toEqual(ids);
      expect(pages).toBe(3);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
    ])('refuses the list query %s naming the field once', async (query, field) => {
      const response = await http(api.baseUrl, 'GET', `/v1/webhooks?${query}`, { key });
      expect(response.status).toBe(400);
      expect(response.body.errors).toHaveLength(1);
      expect(response.body.errors[0].field).toBe(field);
    });

    it('updates url, events and secret, each change an event of the stream', async () => {
      const { body: created } = await register(validBody());
      const patched = await http(api.baseUrl, 'PATCH', `/v1/webhooks/${created.id}`, {
        key,
        json: { url: 'https://other.example.com/in', events: ['compliance.*'] },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({
        ...created,
        url: 'https://other.example.com/in',
        events: ['compliance.*'],
      });
      const rotated = await http(api.baseUrl, 'PATCH', `/v1/webhooks/${created.id}`, {
        key,
        json: { secret: 'a-brand-new-secret-value' },
      });
      expect(rotated.status).toBe(200);
      expect(rotated.text).not.toContain('a-brand-new-secret-value');
      const [row] = await api.dataSource.query(
        'SELECT secret_ciphertext, version FROM webhook_endpoints WHERE id = $1',
        [created.id],
      );
      expect(
        new SecretCipher(api.config.secrets.encryptionKeys).decrypt(
          row.secret_ciphertext,
          created.id,
        ),
      ).toBe('a-brand-new-secret-value');
      expect(row.version).toBe(3);
      const types = await api.dataSource.query(
        'SELECT type FROM events WHERE stream_id = $1 ORDER BY version',
        [created.id],
      );
      expect(types.map((event: { type: string }) => event.type)).toEqual([
        'webhook_endpoint.registered',
        'webhook_endpoint.updated',
        'webhook_endpoint.updated',
      ]);
    });

    it('serialises concurrent updates: each lands, as consecutive versions', async () => {
      const { body: created } = await register(validBody());
      const urls = Array.from({ length: 6 }, (_, i) => `https://concurrent.example.com/${i}`);
      const answers = await Promise.all(
        urls.map((url) =>
          http(api.baseUrl, 'PATCH', `/v1/webhooks/${created.id}`, { key, json: { url } }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(urls.map(() => 200));
      const versions = await api.dataSource.query(
        'SELECT version FROM events WHERE stream_id = $1 ORDER BY version',
        [created.id],
      );
      expect(versions.map((row: { version: number }) => row.version)).toEqual([
        1, 2, 3, 4, 5, 6, 7,
      ]);
      const final = await http(api.baseUrl, 'GET', `/v1/webhooks/${created.id}`, { key });
      expect(urls).toContain(final.body.url);
    });

    it('applies the registration rules to updates', async () => {
      const { body: created } = await register(validBody());
      for (const [json, field] of [
        [{ url: 'http://plain.example.com' }, 'url'],
        [{ events: [] }, 'events'],
        [{ secret: 'short' }, 'secret'],
        [{}, '(body)'],
        [{ status: 'degraded' }, 'status'],
      ] as const) {
        const response = await http(api.baseUrl, 'PATCH', `/v1/webhooks/${created.id}`, {
          key,
          json,
        });
        expect(response.status).toBe(400);
        expect(response.body.errors[0].field).toBe(field);
      }
      expect((await http(api.baseUrl, 'GET', `/v1/webhooks/${created.id}`, { key })).body).toEqual(
        created,
      );
    });

    it('deletes with 204, after which the endpoint is gone', async () => {
      const { body: created } = await register(validBody());
      const deleted = await http(api.baseUrl, 'DELETE', `/v1/webhooks/${created.id}`, { key });
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await http(api.baseUrl, 'GET', `/v1/webhooks/${created.id}`, { key })).status).toBe(
        404,
      );
      expect(
        (await http(api.baseUrl, 'DELETE', `/v1/webhooks/${created.id}`, { key })).status,
      ).toBe(404);
      const [last] = await api.dataSource.query(
        'SELECT type FROM events WHERE stream_id = $1 ORDER BY version DESC LIMIT 1',
        [created.id],
      );
      expect(last.type).toBe('webhook_endpoint.deleted');
    });

    it('answers 404 for ids that are not endpoint ids', async () => {
      for (const id of ['nope', 'ten_01m7zsng2qwqh89sat5d7t1vpt', 'wh_%27%20OR%201=1']) {
        const response = await http(api.baseUrl, 'GET', `/v1/webhooks/${id}`, { key });
        expect(response.status).toBe(404);
        expect(response.body.type).toBe('urn:svc:problem:not-found');
      }
    });
  });

  describe('tenant isolation', () => {
    it("treats another tenant's endpoint as nonexistent: 404, never 403, and absent from lists", async () => {
      const { body: mine } = await register(validBody());
      const intruder = await api.newTenantWithKey(['webhooks:manage']);
      const as = { key: intruder.key };
      expect((await http(api.baseUrl, 'GET', `/v1/webhooks/${mine.id}`, as)).status).toBe(404);
      expect(
        (
          await http(api.baseUrl, 'PATCH', `/v1/webhooks/${mine.id}`, {
            ...as,
            json: { url: 'https://evil.example.com' },
          })
        ).status,
      ).toBe(404);
      expect((await http(api.baseUrl, 'DELETE', `/v1/webhooks/${mine.id}`, as)).status).toBe(404);
      expect((await http(api.baseUrl, 'GET', '/v1/webhooks', as)).body.data).toEqual([]);
      expect((await http(api.baseUrl, 'GET', `/v1/webhooks/${mine.id}`, { key })).body).toEqual(
        mine,
      );
    });
  });

  describe('the endpoint projection', () => {
    it('is rebuilt from the log into exactly the rows the live projection holds', async () => {
      const { body: kept } = await register(validBody());
      const { body: removed } = await register(validBody());
      await http(api.baseUrl, 'PATCH', `/v1/webhooks/${kept.id}`, {
        key,
        json: { events: ['alert.*'], secret: 'rotated-secret-value-1' },
      });
      await http(api.baseUrl, 'DELETE', `/v1/webhooks/${removed.id}`, { key });
      const snapshot = () => api.dataSource.query('SELECT * FROM webhook_endpoints ORDER BY id');
      const live = await snapshot();
      expect(live.length).toBeGreaterThan(1);
      const rebuilt = await api.dataSource.transaction((manager) =>
        rebuildEndpointProjection(manager),
      );
      expect(rebuilt).toBe(live.length);
      expect(await snapshot()).toEqual(live);
    });
  });
});
