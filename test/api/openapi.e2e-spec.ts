import Ajv from 'ajv';
import { EVENT_SUBSCRIPTIONS } from '@svc/contracts';
import { http, RunningApi, startApi } from '../support';

describe('the OpenAPI document at /v1/openapi.json', () => {
  let api: RunningApi;
  let key: string;
  let document: any;
  let ajv: Ajv;

  beforeAll(async () => {
    api = await startApi();
    ({ key } = await api.newTenantWithKey(['webhooks:manage', 'tenants:read']));
    const response = await http(api.baseUrl, 'GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
    ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat('uri', (value: string) => URL.canParse(value));
    ajv.addFormat(
      'date-time',
      (value: string) => !Number.isNaN(Date.parse(value)) && value.includes('T'),
    );
    ajv.addSchema(document, 'openapi.json');
  });
  afterAll(() => api.close());

  const schema = (name: string) => ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
  const registration = () => document.paths['/v1/webhooks'].post;

  it('is OpenAPI 3 and needs no credentials', () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(document.components.securitySchemes.api_key).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it('describes the registration request as the API enforces it', () => {
    const requestSchema = document.components.schemas.RegisterWebhookRequest;
    expect(registration().requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/RegisterWebhookRequest',
    );
    expect([...requestSchema.required].sort()).toEqual(['events', 'secret', 'url']);
    expect(requestSchema.properties.secret).toMatchObject({ minLength: 16, maxLength: 256 });
    expect(requestSchema.properties.url).toMatchObject({ format: 'uri', maxLength: 2048 });
    expect(requestSchema.properties.events.items.enum).toEqual([...EVENT_SUBSCRIPTIONS]);
    expect(registration().security).toEqual([{ api_key: [] }]);
  });

  it('documents 201 with Location and the endpoint without its secret', () => {
    const created = registration().responses['201'];
    expect(created.headers.Location).toBeDefined();
    expect(created.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/WebhookEndpointResponse',
    );
    const endpointSchema = document.components.schemas.WebhookEndpointResponse;
    // The spec's five fields, ADR 0044's signature_schemes, ADR 0045's ordering, ADR 0046's
    // filter and ADR 0048's auth, retry_schedule and timeout_seconds (null when none) are always there; the extensions of issue 13 only when they apply.
    expect([...endpointSchema.required].sort()).toEqual([
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
    expect(Object.keys(endpointSchema.properties).sort()).toEqual([
      'auth',
      'created_at',
      'events',
      'filter',
      'id',
      'ordering',
      'previous_secret_expires_at',
      'rate_limit_per_second',
      'retry_schedule',
      'signature_schemes',
      'status',
      'timeout_seconds',
      'url',
    ]);
    expect(JSON.stringify(endpointSchema)).not.toMatch(/"secret"/);
    for (const status of ['400', '401', '403', '413', '415']) {
      expect(registration().responses[status].content['application/problem+json']).toBeDefined();
    }
  });

  it('matches what the registration route really answers', async () => {
    const requestBody = {
      url: 'https://hooks.example.com/in',
      events: ['alert.*'],
      secret: 'documented-secret-1',
    };
    expect(schema('RegisterWebhookRequest')(requestBody)).toBe(true);
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', { key, json: requestBody });
    expect(response.status).toBe(201);
    const validate = schema('WebhookEndpointResponse');
    expect(validate(response.body)).toBe(true);
    expect(Object.keys(response.body).sort()).toEqual(
      [...document.components.schemas.WebhookEndpointResponse.required].sort(),
    );
    const failure = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: { ...requestBody, secret: 'short' },
    });
    expect(schema('RegisterWebhookRequest')({ ...requestBody, secret: 'short' })).toBe(false);
    expect(failure.status).toBe(400);
    expect(schema('ProblemDocument')(failure.body)).toBe(true);
  });

  it('validates list and read answers against their documented schemas', async () => {
    const list = await http(api.baseUrl, 'GET', '/v1/webhooks', { key });
    expect(schema('WebhookEndpointPage')(list.body)).toBe(true);
    const one = await http(api.baseUrl, 'GET', `/v1/webhooks/${list.body.data[0].id}`, { key });
    expect(schema('WebhookEndpointResponse')(one.body)).toBe(true);
    const tenants = await http(api.baseUrl, 'GET', '/v1/tenants', { key });
    expect(schema('TenantPage')(tenants.body)).toBe(true);
  });

  it('documents the recover answer, with whether more are left to re-drive (ADR 0022)', async () => {
    const operation = document.paths['/v1/webhooks/{id}/recover'].post;
    expect(operation.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/RecoveryResponse',
    );
    const recovery = document.components.schemas.RecoveryResponse;
    expect([...recovery.required].sort()).toEqual([
      'endpoint',
      'more_to_redrive',
      'redriven_deliveries',
    ]);
    expect(recovery.properties.more_to_redrive.type).toBe('boolean');
    const list = await http(api.baseUrl, 'GET', '/v1/webhooks', { key });
    const response = await http(
      api.baseUrl,
      'POST',
      `/v1/webhooks/${list.body.data[0].id}/recover`,
      { key, json: { redrive_abandoned_since: '2026-01-01T00:00:00Z' } },
    );
    expect(response.status).toBe(200);
    expect(schema('RecoveryResponse')(response.body)).toBe(true);
    expect(Object.keys(response.body).sort()).toEqual(Object.keys(recovery.properties).sort());
  });

  it('documents the audit trail: its filters, its page of entries and the scope it needs (ADR 0047)', () => {
    const list = document.paths['/v1/audit-events'].get;
    expect(list.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/AuditEventPage',
    );
    expect(list.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual([
      'action',
      'cursor',
      'endpoint_id',
      'from',
      'limit',
      'to',
    ]);
    expect(list.responses['403'].description).toContain('audit:read');
    const entry = document.components.schemas.AuditEventResponse;
    expect(Object.keys(entry.properties).sort()).toEqual([
      'action',
      'actor',
      'client_address',
      'details',
      'id',
      'occurred_at',
      'request_id',
      'target',
    ]);
  });

  it('documents the sequence number of every delivery and attempt it answers, null allowed (ADR 0045)', () => {
    const answerOf = (path: string, method: string) =>
      document.paths[path][method].responses['200'].content['application/json'].schema;
    expect(answerOf('/v1/events/{event_id}/deliveries', 'get').$ref).toBe(
      '#/components/schemas/DeliveryList',
    );
    expect(answerOf('/v1/deliveries/{delivery_id}/replay', 'post').$ref).toBe(
      '#/components/schemas/DeliveryResponse',
    );
    expect(answerOf('/v1/deliveries', 'get').$ref).toBe('#/components/schemas/UndeliveredPage');
    expect(answerOf('/v1/webhooks/{id}/attempts', 'get').$ref).toBe(
      '#/components/schemas/AttemptPage',
    );
    expect(answerOf('/v1/webhooks/{id}/test', 'post').$ref).toBe(
      '#/components/schemas/AttemptResponse',
    );
    for (const name of ['DeliveryResponse', 'UndeliveredDelivery', 'AttemptResponse']) {
      const shown = document.components.schemas[name];
      expect({ name, required: shown.required }).toEqual({
        name,
        required: expect.arrayContaining(['sequence']),
      });
      expect({ name, sequence: shown.properties.sequence }).toEqual({
        name,
        sequence: expect.objectContaining({
          type: 'integer',
          nullable: true,
          description: expect.stringContaining('X-SVC-Sequence'),
        }),
      });
    }
    const attempt = schema('AttemptResponse');
    const answer = {
      delivery_id: 'del_01m7zsng2qwqh89sat5d7t1vpt',
      event_id: 'evt_01m7zsng2qwqh89sat5d7t1vpt',
      event_type: 'alert.created',
      attempt: 1,
      outcome: 'succeeded',
      status_code: 200,
      error_kind: null,
      error_message: null,
      latency_ms: 12,
      response_excerpt: null,
      attempted_at: '2026-03-01T00:00:00.000Z',
    };
    expect(attempt({ ...answer, sequence: 3 })).toBe(true);
    expect(attempt({ ...answer, sequence: null })).toBe(true);
    expect(attempt({ ...answer, sequence: '3' })).toBe(false);
    expect(attempt(answer)).toBe(false);
  });

  it('documents portal sessions: minting behind authentication, the exchange public (ADR 0042)', async () => {
    const mint = document.paths['/v1/portal-sessions'].post;
    const exchange = document.paths['/v1/portal-sessions/exchange'].post;
    expect(mint.security).toEqual([{ api_key: [] }]);
    expect(exchange.security).toBeUndefined();
    expect(document.paths['/v1/portal-sessions/current'].delete.responses['204']).toBeDefined();
    const minted = await http(api.baseUrl, 'POST', '/v1/portal-sessions', {
      key,
      json: { read_only: true },
    });
    expect(minted.status).toBe(201);
    expect(schema('PortalLinkResponse')(minted.body)).toBe(true);
    const token = new URL(minted.body.url).hash.slice('#portal='.length);
    expect(schema('ExchangePortalLinkRequest')({ token })).toBe(true);
    const opened = await http(api.baseUrl, 'POST', '/v1/portal-sessions/exchange', {
      json: { token },
    });
    expect(opened.status).toBe(201);
    expect(schema('PortalSessionResponse')(opened.body)).toBe(true);
    for (const status of ['400', '401']) {
      expect(exchange.responses[status].content['application/problem+json']).toBeDefined();
    }
  });

  /** Routes that answer without credentials: their own secret (a one-time link) is the credential. */
  /** The public routes, and what each answers to a request without credentials or body. */
  const PUBLIC_OPERATIONS: Record<string, number> = {
    'POST /v1/portal-sessions/exchange': 400,
    // The signing keys' JWKS (ADR 0044): public material, for receivers without credentials.
    'GET /.well-known/webhook-signing-keys.json': 200,
  };

  it('lists only routes that exist, each behind authentication unless documented as public', async () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { security?: unknown }>).map(
        ([method, operation]) => [
          method.toUpperCase(),
          path.replace('{id}', 'wh_01m7zsng2qwqh89sat5d7t1vpt'),
          operation.security === undefined,
        ],
      ),
    );
    expect(operations.length).toBeGreaterThanOrEqual(6);
    expect(
      operations
        .filter(([, , open]) => open)
        .map(([method, path]) => `${method} ${path}`)
        .sort(),
    ).toEqual(Object.keys(PUBLIC_OPERATIONS).sort());
    for (const [method, path, open] of operations) {
      const response = await http(api.baseUrl, method as string, path as string);
      // Without its body a public route that takes one is a 400, never a 2xx.
      const expected = open ? PUBLIC_OPERATIONS[`${method} ${path}`] : 401;
      expect([method, path, response.status]).toEqual([method, path, expected]);
    }
  });
});
