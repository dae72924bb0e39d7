import { http, RunningApi, startApi } from '../support';

describe('errors are RFC 9457 problem documents everywhere', () => {
  let api: RunningApi;
  let key: string;

  beforeAll(async () => {
    api = await startApi({ API_BODY_LIMIT_BYTES: '2048' });
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
  });
  afterAll(() => api.close());

  const expectProblem = (
    response: { status: number; headers: Headers; body: any; text: string },
    status: number,
    type: string,
  ) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({
      type,
      status,
      title: expect.any(String),
      detail: expect.any(String),
    });
    expect(response.text).not.toMatch(/node_modules|\.ts:\d+|Error:/);
  };

  it('answers an unknown route with 404, an unsupported method on a known one with 405', async () => {
    expectProblem(
      await http(api.baseUrl, 'GET', '/v1/nothing-here', { key }),
      404,
      'urn:svc:problem:not-found',
    );
    const wrongMethod = await http(api.baseUrl, 'PUT', '/v1/webhooks', { key });
    expectProblem(wrongMethod, 405, 'urn:svc:problem:method-not-allowed');
    expect(wrongMethod.headers.get('allow')).toMatch(/GET.*POST/);
  });

  it('answers a body over the configured limit with 413', async () => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/',
        events: ['alert.*'],
        secret: 'x'.repeat(20),
        pad: 'p'.repeat(4096),
      },
    });
    expectProblem(response, 413, 'urn:svc:problem:payload-too-large');
  });

  it.each([
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'url=https%3A%2F%2Fx.example.com'],
    ['application/xml', '<webhook/>'],
  ])('answers a %s body with 415', async (contentType, body) => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      body,
      headers: { 'content-type': contentType },
    });
    expectProblem(response, 415, 'urn:svc:problem:unsupported-media-type');
    expect(response.body.detail).toMatch(/application\/json/);
  });

  it('answers malformed JSON with 400', async () => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      body: '{"url": "https://x.example.com", ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 400, 'urn:svc:problem:malformed-json');
  });

  it('answers a JSON body that is not an object with 400', async () => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: ['not', 'an', 'object'],
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('accepts JSON with a charset parameter', async () => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      body: JSON.stringify({
        url: 'https://hooks.example.com/',
        events: ['alert.*'],
        secret: 'x'.repeat(20),
      }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
  });

  it('echoes a request id on every answer', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/nothing-here', {
      headers: { 'x-request-id': 'trace-me-123' },
    });
    expect(response.headers.get('x-request-id')).toBe('trace-me-123');
    expect((await http(api.baseUrl, 'GET', '/v1/webhooks')).headers.get('x-request-id')).toMatch(
      /^[0-9a-f-]{36}$/,
    );
  });
});

describe('health and readiness (on the management port)', () => {
  it('is live, and ready on PostgreSQL alone (ADR 0020: NATS is not what the API serves)', async () => {
    const api = await startApi();
    try {
      expect((await http(api.managementUrl, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
      const ready = await http(api.managementUrl, 'GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ok', checks: { postgres: { status: 'ok' } } });
    } finally {
      await api.close();
    }
  });

  it('exports HTTP metrics by route template, never by id', async () => {
    const api = await startApi();
    try {
      const { key } = await api.newTenantWithKey(['webhooks:manage']);
      await http(api.baseUrl, 'GET', '/v1/webhooks/wh_01m7zsng2qwqh89sat5d7t1vpt', { key });
      const metrics = (await http(api.managementUrl, 'GET', '/metrics')).text;
      expect(metrics).toMatch(
        /http_requests_total\{method="GET",route="\/v1\/webhooks\/:id",status_code="404",app="api"\} 1/,
      );
      expect(metrics).toContain('http_request_duration_seconds_bucket');
      expect(metrics).not.toContain('wh_01m7zsng2qwqh89sat5d7t1vpt');
      expect(metrics).toContain('process_resident_memory_bytes');
    } finally {
      await api.close();
    }
  });
});
