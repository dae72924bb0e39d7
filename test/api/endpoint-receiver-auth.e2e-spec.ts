import { rebuildEndpointProjection } from '@svc/webhook-endpoints';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { http, RunningApi, startApi } from '../support';
import { endpointRequests } from '../support/endpoint-requests';

const TLS = resolve(__dirname, '../fixtures/tls');
const pem = (name: string) => readFileSync(resolve(TLS, name), 'utf8');
const CLIENT_CERT = pem('client.pem');
const CLIENT_KEY = pem('client-key.pem');

const validBody = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/authenticated',
  events: ['alert.*'],
  secret: 'endpoint-receiver-auth-01',
  ...overrides,
});

const SPLUNK_TOKEN = 'Splunk 6c1b2d3e-4f50-4a6b-8c7d-8e9f0a1b2c3d';
const OAUTH = {
  type: 'oauth2_client_credentials',
  token_url: 'https://login.example.com/oauth2/token',
  client_id: 'svc-webhooks',
  client_secret: 'client-secret-that-must-never-be-shown',
  scope: 'events.write',
};

/** Every string a request gave that authenticates: none may appear in an answer, event or row. */
const SECRETS = [
  SPLUNK_TOKEN,
  '6c1b2d3e-4f50-4a6b-8c7d-8e9f0a1b2c3d',
  'basic-password-never-shown',
  OAUTH.client_secret,
  CLIENT_KEY.split('\n')[1],
];

/**
 * `auth`, `retry_schedule` and `timeout_seconds` on the endpoint resource (ADR 0048, issue 34
 * items 1, 2 and 6): given at registration and by PATCH (null removes), shown in every answer
 * without a value that authenticates, sealed in the log and the projection, each problem a 400
 * naming its field. What the engine does with them is tested with the engine.
 */
describe('receiver authentication and delivery policy of a webhook endpoint', () => {
  let api: RunningApi;
  let key: string;
  let requests: ReturnType<typeof endpointRequests>;

  beforeAll(async () => {
    api = await startApi();
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
    requests = endpointRequests(api, key);
  });
  afterAll(() => api.close());

  const expectNoSecretIn = (value: unknown) => {
    const text = JSON.stringify(value);
    for (const secret of SECRETS) {
      expect(text).not.toContain(secret);
    }
  };

  it('is none when the registration gives none: null in answers, absent from the log', async () => {
    const response = await requests.register(validBody());
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      auth: null,
      retry_schedule: null,
      timeout_seconds: null,
    });
    const [registered] = await requests.eventsOf(response.body.id);
    for (const field of ['auth', 'retry_schedule', 'timeout_seconds']) {
      expect(registered.data).not.toHaveProperty(field);
      expect(await requests.columnOf(response.body.id, field as 'auth')).toBeNull();
    }
  });

  it.each([
    [
      'headers (Splunk HEC)',
      {
        type: 'headers',
        headers: { Authorization: SPLUNK_TOKEN, 'X-Splunk-Request-Channel': 'c1' },
      },
      { type: 'headers', header_names: ['Authorization', 'X-Splunk-Request-Channel'] },
    ],
    [
      'basic',
      { type: 'basic', username: 'svc', password: 'basic-password-never-shown' },
      { type: 'basic', username: 'svc' },
    ],
    [
      'oauth2_client_credentials',
      OAUTH,
      {
        type: 'oauth2_client_credentials',
        token_url: OAUTH.token_url,
        client_id: 'svc-webhooks',
        scope: 'events.write',
        audience: null,
      },
    ],
    [
      'mtls',
      { type: 'mtls', certificate: CLIENT_CERT, private_key: CLIENT_KEY },
      {
        type: 'mtls',
        subject: expect.stringContaining('CN=svc-webhooks-delivery'),
        issuer: expect.stringContaining('test client CA'),
        not_after: '2126-01-01T00:00:00.000Z',
        fingerprint_sha256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
      },
    ],
  ])(
    'registers %s: answers show what is not secret; log and row hold the secrets sealed',
    async (_, auth, view) => {
      const response = await requests.register(validBody({ auth }));
      expect(response.status).toBe(201);
      expect(response.body.auth).toEqual(view);
      expect((await requests.read(response.body.id)).body.auth).toEqual(view);
      const list = await http(api.baseUrl, 'GET', '/v1/webhooks?limit=100', { key });
      expect(list.body.data.find((e: { id: string }) => e.id === response.body.id).auth).toEqual(
        view,
      );
      const [registered] = await requests.eventsOf(response.body.id);
      const row = await requests.columnOf<Record<string, unknown>>(response.body.id, 'auth');
      expect(registered.data.auth).toMatchObject({
        type: auth.type,
        secret_ciphertext: expect.any(String),
      });
      expect(row).toEqual(registered.data.auth);
      expectNoSecretIn([response.body, list.body, registered.data, row]);
      const audit = await api.dataSource.query(
        'SELECT data, metadata FROM events WHERE stream_id = $1',
        [response.body.id],
      );
      expectNoSecretIn(audit);
    },
  );

  it('takes a retry schedule and a timeout, shows them, and a PATCH changes, keeps or removes each', async () => {
    const registered = await requests.register(
      validBody({ retry_schedule: ['10s', '1m', '1h'], timeout_seconds: 3 }),
    );
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({
      retry_schedule: ['10s', '1m', '1h'],
      timeout_seconds: 3,
    });
    const id = registered.body.id;
    expect(await requests.columnOf(id, 'retry_schedule')).toEqual(['10s', '1m', '1h']);

    const changed = await requests.update(id, { retry_schedule: ['24h'] });
    expect(changed.body).toMatchObject({ retry_schedule: ['24h'], timeout_seconds: 3 });
    const kept = await requests.update(id, { events: ['incident.*'] });
    expect(kept.body).toMatchObject({ retry_schedule: ['24h'], timeout_seconds: 3 });
    const removed = await requests.update(id, { retry_schedule: null, timeout_seconds: null });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ retry_schedule: null, timeout_seconds: null });
    expect(await requests.columnOf(id, 'timeout_seconds')).toBeNull();
  });

  it('replaces auth whole by a PATCH, keeps it when another field changes, and null removes it', async () => {
    const { body: endpoint } = await requests.register(
      validBody({
        auth: { type: 'basic', username: 'svc', password: 'basic-password-never-shown' },
      }),
    );
    const toOAuth = await requests.update(endpoint.id, { auth: OAUTH });
    expect(toOAuth.status).toBe(200);
    expect(toOAuth.body.auth).toMatchObject({ type: 'oauth2_client_credentials' });
    const kept = await requests.update(endpoint.id, { url: 'https://hooks.example.com/other' });
    expect(kept.body.auth).toMatchObject({ type: 'oauth2_client_credentials' });
    const enough = await requests.update(endpoint.id, { timeout_seconds: 10 });
    expect(enough.status).toBe(200);
    const removed = await requests.update(endpoint.id, { auth: null });
    expect(removed.body.auth).toBeNull();
    expect(await requests.columnOf(endpoint.id, 'auth')).toBeNull();
    const changes = (await requests.eventsOf(endpoint.id))
      .filter((event) => event.type === 'webhook_endpoint.updated')
      .map((event) => Object.keys(event.data.changes ?? {}));
    expect(changes).toEqual([['auth'], ['url'], ['timeout_seconds'], ['auth']]);
    expectNoSecretIn(await requests.eventsOf(endpoint.id));
    const empty = await requests.update(endpoint.id, {});
    expect(empty.body.errors).toEqual([
      { field: '(body)', detail: expect.stringMatching(/auth, retry_schedule, timeout_seconds$/) },
    ]);
  });

  it('seals the secrets for this endpoint alone: a ciphertext copied to another does not open', async () => {
    const { body: first } = await requests.register(
      validBody({ auth: { type: 'basic', username: 'a', password: 'basic-password-never-shown' } }),
    );
    const { body: second } = await requests.register(
      validBody({ auth: { type: 'basic', username: 'b', password: 'basic-password-never-shown' } }),
    );
    const [a, b] = await Promise.all(
      [first.id, second.id].map((id) =>
        requests.columnOf<{ secret_ciphertext: string }>(id, 'auth'),
      ),
    );
    // Same plaintext, different endpoints: different ciphertexts (nonce and context).
    expect(a.secret_ciphertext).not.toEqual(b.secret_ciphertext);
  });

  it.each([
    [
      'an unknown type',
      { type: 'kerberos' },
      'auth.type',
      /headers, basic, oauth2_client_credentials, mtls/,
    ],
    ['not an object', 'Splunk abc', 'auth', /object/],
    [
      'a refused header name',
      { type: 'headers', headers: { Host: 'evil.example' } },
      'auth.headers.Host',
      /./,
    ],
    [
      'a signature header',
      { type: 'headers', headers: { 'X-SVC-Signature-256': 'sha256=0' } },
      'auth.headers.X-SVC-Signature-256',
      /./,
    ],
    [
      'more than 10 headers',
      {
        type: 'headers',
        headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])),
      },
      'auth.headers',
      /10/,
    ],
    [
      'a username with a colon',
      { type: 'basic', username: 'a:b', password: 'p' },
      'auth.username',
      /:/,
    ],
    [
      'an http token URL',
      { ...OAUTH, token_url: 'http://login.example.com/token' },
      'auth.token_url',
      /https/,
    ],
    ['a missing client secret', { ...OAUTH, client_secret: undefined }, 'auth.client_secret', /./],
    [
      'a malformed PEM',
      {
        type: 'mtls',
        certificate: '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----',
        private_key: CLIENT_KEY,
      },
      'auth.certificate',
      /PEM/,
    ],
    [
      'a key that does not match its certificate',
      { type: 'mtls', certificate: CLIENT_CERT, private_key: pem('other-key.pem') },
      'auth.private_key',
      /does not match/,
    ],
    [
      'an expired certificate',
      {
        type: 'mtls',
        certificate: pem('client-expired.pem'),
        private_key: pem('client-expired-key.pem'),
      },
      'auth.certificate',
      /expired/,
    ],
    [
      'an unknown field',
      { type: 'basic', username: 'a', password: 'p', realm: 'x' },
      'auth.realm',
      /./,
    ],
  ])(
    'refuses %s with a 400 naming the field, at registration and by PATCH',
    async (_, auth, field, detail) => {
      const refused = await requests.register(validBody({ auth }));
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.body.errors).toContainEqual({ field, detail: expect.stringMatching(detail) });
      expectNoSecretIn(refused.body);

      const { body: endpoint } = await requests.register(validBody());
      const patched = await requests.update(endpoint.id, { auth });
      expect(patched.status).toBe(400);
      expect(patched.body.errors).toContainEqual({ field, detail: expect.stringMatching(detail) });
      expect((await requests.read(endpoint.id)).body.auth).toBeNull();
    },
  );

  it.each([
    ['an empty schedule', { retry_schedule: [] }, 'retry_schedule'],
    ['nine entries', { retry_schedule: Array.from({ length: 9 }, () => '1m') }, 'retry_schedule'],
    ['a delay under a second', { retry_schedule: ['10s', '500ms'] }, 'retry_schedule[1]'],
    ['a delay over a day', { retry_schedule: ['25h'] }, 'retry_schedule[0]'],
    ['not a list', { retry_schedule: '5s,30s' }, 'retry_schedule'],
    ['a timeout of 0', { timeout_seconds: 0 }, 'timeout_seconds'],
    ['a timeout over the ceiling', { timeout_seconds: 11 }, 'timeout_seconds'],
    ['a fractional timeout', { timeout_seconds: 2.5 }, 'timeout_seconds'],
  ])('refuses %s with a 400 naming the field', async (_, fields, field) => {
    const refused = await requests.register(validBody(fields));
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('is shown by the rotation and recovery answers, and survives a rebuild of the projection', async () => {
    const auth = { type: 'basic', username: 'svc', password: 'basic-password-never-shown' };
    const { body: endpoint } = await requests.register(
      validBody({ auth, retry_schedule: ['5s'], timeout_seconds: 7 }),
    );
    const rotated = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/secret/rotate`, {
      key,
      json: {},
    });
    expect(rotated.body.endpoint).toMatchObject({
      auth: { type: 'basic', username: 'svc' },
      retry_schedule: ['5s'],
      timeout_seconds: 7,
    });
    const before = await requests.columnOf(endpoint.id, 'auth');
    await api.dataSource.transaction((manager) => rebuildEndpointProjection(manager));
    expect(await requests.columnOf(endpoint.id, 'auth')).toEqual(before);
    expect((await requests.read(endpoint.id)).body).toMatchObject({
      auth: { type: 'basic', username: 'svc' },
      retry_schedule: ['5s'],
      timeout_seconds: 7,
    });
  });

  it('is documented in the OpenAPI document: one schema per type, answered always', async () => {
    const { body: document } = await http(api.baseUrl, 'GET', '/v1/openapi.json');
    const schemas = document.components.schemas;
    const types = (property: { anyOf: { properties: { type: { enum: string[] } } }[] }) =>
      property.anyOf.map((variant) => variant.properties.type.enum[0]);
    for (const schema of ['RegisterWebhookRequest', 'UpdateWebhookRequest']) {
      expect(types(schemas[schema].properties.auth)).toEqual([
        'headers',
        'basic',
        'oauth2_client_credentials',
        'mtls',
      ]);
      expect(schemas[schema].properties.retry_schedule).toMatchObject({ maxItems: 8 });
      expect(schemas[schema].properties.timeout_seconds).toMatchObject({ minimum: 1, maximum: 10 });
    }
    const answer = schemas.WebhookEndpointResponse;
    expect(answer.required).toEqual(
      expect.arrayContaining(['auth', 'retry_schedule', 'timeout_seconds']),
    );
    expect(JSON.stringify(answer.properties.auth)).not.toMatch(
      /password|client_secret|private_key/,
    );
  });
});
