import { http, RunningApi, startApi } from '../support';

const validBody = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/limited',
  events: ['alert.*'],
  secret: 'rate-limited-secret-01',
  ...overrides,
});

/**
 * `rate_limit_per_second` on the endpoint resource (ADR 0028): set at registration, changed or
 * removed (null) by PATCH, shown only while set, recorded in the endpoint's log.
 */
describe('the rate limit of a webhook endpoint', () => {
  let api: RunningApi;
  let key: string;

  beforeAll(async () => {
    api = await startApi();
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
  });
  afterAll(() => api.close());

  const register = (body: unknown) =>
    http(api.baseUrl, 'POST', '/v1/webhooks', { key, json: body });
  const update = (id: string, body: unknown) =>
    http(api.baseUrl, 'PATCH', `/v1/webhooks/${id}`, { key, json: body });
  const read = (id: string) => http(api.baseUrl, 'GET', `/v1/webhooks/${id}`, { key });

  it('is set at registration, answered, and recorded in the registration event', async () => {
    const response = await register(validBody({ rate_limit_per_second: 5 }));
    expect(response.status).toBe(201);
    expect(response.body.rate_limit_per_second).toBe(5);
    expect((await read(response.body.id)).body.rate_limit_per_second).toBe(5);
    const [event] = await api.dataSource.query(
      "SELECT data FROM events WHERE stream_id = $1 AND type = 'webhook_endpoint.registered'",
      [response.body.id],
    );
    expect(event.data.rate_limit_per_second).toBe(5);
    const [row] = await api.dataSource.query(
      'SELECT rate_limit_per_second FROM webhook_endpoints WHERE id = $1',
      [response.body.id],
    );
    expect(row.rate_limit_per_second).toBe(5);
  });

  it('is left out of the answer when there is none, so the resource stays that of spec 4.1 (with ADR 0044 signature_schemes, ADR 0045 ordering, ADR 0046 filter and ADR 0048 auth, retry_schedule and timeout_seconds)', async () => {
    for (const body of [validBody(), validBody({ rate_limit_per_second: null })]) {
      const response = await register(body);
      expect(response.status).toBe(201);
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
    }
  });

  it.each([
    ['0', 0, /1 to 10000/],
    ['10001', 10_001, /1 to 10000/],
    ['-3', -3, /1 to 10000/],
    ['1.5', 1.5, /whole number/],
    ['"x"', 'x', /must be a number/],
    ['"5"', '5', /must be a number/],
    ['true', true, /must be a number/],
    ['[5]', [5], /must be a number/],
  ])('refuses %s at registration and in PATCH, naming the field', async (_, value, detail) => {
    const refused = await register(validBody({ rate_limit_per_second: value }));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.type).toBe('urn:svc:problem:invalid-request');
    expect(refused.body.errors).toEqual([
      { field: 'rate_limit_per_second', detail: expect.stringMatching(detail) },
    ]);

    const { body: endpoint } = await register(validBody({ rate_limit_per_second: 7 }));
    const patched = await update(endpoint.id, { rate_limit_per_second: value });
    expect(patched.status).toBe(400);
    expect(patched.body.errors).toEqual([
      { field: 'rate_limit_per_second', detail: expect.stringMatching(detail) },
    ]);
    expect((await read(endpoint.id)).body.rate_limit_per_second).toBe(7);
  });

  it('accepts the bounds, 1 and 10000', async () => {
    for (const limit of [1, 10_000]) {
      const response = await register(validBody({ rate_limit_per_second: limit }));
      expect(response.status).toBe(201);
      expect(response.body.rate_limit_per_second).toBe(limit);
    }
  });

  it('is changed by a PATCH naming only it, and kept by a PATCH that leaves it out', async () => {
    const { body: endpoint } = await register(validBody());
    const limited = await update(endpoint.id, { rate_limit_per_second: 20 });
    expect(limited.status).toBe(200);
    expect(limited.body.rate_limit_per_second).toBe(20);

    const other = await update(endpoint.id, { events: ['incident.*'] });
    expect(other.status).toBe(200);
    expect(other.body.rate_limit_per_second).toBe(20);
  });

  it('is removed by a PATCH with null, which the other fields still refuse', async () => {
    const { body: endpoint } = await register(validBody({ rate_limit_per_second: 3 }));
    const removed = await update(endpoint.id, { rate_limit_per_second: null });
    expect(removed.status).toBe(200);
    expect(removed.body).not.toHaveProperty('rate_limit_per_second');
    expect((await read(endpoint.id)).body).not.toHaveProperty('rate_limit_per_second');
    const [row] = await api.dataSource.query(
      'SELECT rate_limit_per_second FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(row.rate_limit_per_second).toBeNull();
    const [event] = await api.dataSource.query(
      `SELECT data FROM events WHERE stream_id = $1 AND type = 'webhook_endpoint.updated'
        ORDER BY version DESC LIMIT 1`,
      [endpoint.id],
    );
    expect(event.data.changes).toEqual({ rate_limit_per_second: null });

    const nullUrl = await update(endpoint.id, { url: null, rate_limit_per_second: null });
    expect(nullUrl.status).toBe(400);
    expect(nullUrl.body.errors).toEqual([{ field: 'url', detail: expect.stringMatching(/null/) }]);
  });

  it('still refuses a PATCH that names no field at all', async () => {
    const { body: endpoint } = await register(validBody());
    const response = await update(endpoint.id, {});
    expect(response.status).toBe(400);
    expect(response.body.errors[0].detail).toMatch(/rate_limit_per_second/);
  });

  it('is documented in the OpenAPI document as an optional integer within its bounds', async () => {
    const { body: document } = await http(api.baseUrl, 'GET', '/v1/openapi.json');
    const schemas = document.components.schemas;
    for (const request of ['RegisterWebhookRequest', 'UpdateWebhookRequest']) {
      expect(schemas[request].properties.rate_limit_per_second).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: 10_000,
        nullable: true,
      });
      expect(schemas[request].required ?? []).not.toContain('rate_limit_per_second');
    }
    expect(schemas.WebhookEndpointResponse.properties.rate_limit_per_second).toMatchObject({
      type: 'integer',
    });
    expect(schemas.WebhookEndpointResponse.required).not.toContain('rate_limit_per_second');
  });
});
