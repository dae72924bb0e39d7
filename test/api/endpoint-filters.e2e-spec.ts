import { rebuildEndpointProjection } from '@svc/webhook-endpoints';
import { http, RunningApi, startApi } from '../support';
import { endpointRequests } from '../support/endpoint-requests';

const validBody = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/filtered',
  events: ['alert.*'],
  secret: 'endpoint-filters-secret-01',
  ...overrides,
});

/** The example: the high and critical alerts only. */
const SEVERE = { data: { severity: { $in: ['high', 'critical'] } } };

/** `count` conditions of one operator each, on fields f1, f2, … */
const operators = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, index) => [`f${index + 1}`, { $neq: 1 }]));

/**
 * `filter` on the endpoint resource (ADR 0046, issue 33 item 1): given at registration and by
 * PATCH (null removes it), shown in every answer (null when none), kept in the endpoint's log and
 * projection, refused with a 400 naming its path in the filter when the language or its limits
 * refuse it. Which events a filter lets through is the engine's, tested with it.
 */
describe('the payload filter of a webhook endpoint', () => {
  let api: RunningApi;
  let key: string;
  let requests: ReturnType<typeof endpointRequests>;

  beforeAll(async () => {
    api = await startApi();
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
    requests = endpointRequests(api, key);
  });
  afterAll(() => api.close());

  it('is null when the registration gives none, in the answer and the row, and absent from the log', async () => {
    for (const body of [validBody(), validBody({ filter: null })]) {
      const response = await requests.register(body);
      expect(response.status).toBe(201);
      expect(response.body.filter).toBeNull();
      expect((await requests.read(response.body.id)).body.filter).toBeNull();
      const [registered] = await requests.eventsOf(response.body.id);
      expect(registered.data).not.toHaveProperty('filter');
      expect(await requests.columnOf(response.body.id, 'filter')).toBeNull();
    }
  });

  it('is registered as given: the answer, the list, the log and the row show it', async () => {
    const response = await requests.register(validBody({ filter: SEVERE }));
    expect(response.status).toBe(201);
    expect(response.body.filter).toEqual(SEVERE);
    expect((await requests.read(response.body.id)).body.filter).toEqual(SEVERE);
    const list = await http(api.baseUrl, 'GET', '/v1/webhooks?limit=100', { key });
    const listed = list.body.data.find((e: { id: string }) => e.id === response.body.id);
    expect(listed.filter).toEqual(SEVERE);
    const [registered] = await requests.eventsOf(response.body.id);
    expect(registered.data.filter).toEqual(SEVERE);
    expect(await requests.columnOf(response.body.id, 'filter')).toEqual(SEVERE);
  });

  it('is changed by a PATCH that names it, kept by one that does not, and removed by null', async () => {
    const { body: endpoint } = await requests.register(validBody({ filter: SEVERE }));
    const production = { $and: [{ data: { environment: 'production' } }, SEVERE] };

    const changed = await requests.update(endpoint.id, { filter: production });
    expect(changed.status).toBe(200);
    expect(changed.body.filter).toEqual(production);
    const otherChange = await requests.update(endpoint.id, { events: ['incident.*'] });
    expect(otherChange.body.filter).toEqual(production);
    const removed = await requests.update(endpoint.id, { filter: null });
    expect(removed.status).toBe(200);
    expect(removed.body.filter).toBeNull();
    expect((await requests.read(endpoint.id)).body.filter).toBeNull();
    expect(await requests.columnOf(endpoint.id, 'filter')).toBeNull();

    const updates = (await requests.eventsOf(endpoint.id)).filter(
      (event) => event.type === 'webhook_endpoint.updated',
    );
    expect(updates.map((event) => event.data.changes)).toEqual([
      { filter: production },
      { events: ['incident.*'] },
      { filter: null },
    ]);
  });

  it('is enough on its own for a PATCH, and is among the fields an empty one is asked for', async () => {
    const { body: endpoint } = await requests.register(validBody());
    expect((await requests.update(endpoint.id, { filter: {} })).body.filter).toEqual({});
    const empty = await requests.update(endpoint.id, {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([
      {
        field: '(body)',
        detail: expect.stringMatching(/ordering, filter, auth, retry_schedule, timeout_seconds$/),
      },
    ]);
  });

  it('is shown by the rotation and recovery answers too', async () => {
    const { body: endpoint } = await requests.register(validBody({ filter: SEVERE }));
    const rotated = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/secret/rotate`, {
      key,
      json: {},
    });
    expect(rotated.body.endpoint.filter).toEqual(SEVERE);
    const recovered = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/recover`, {
      key,
      json: {},
    });
    expect(recovered.body.endpoint.filter).toEqual(SEVERE);
  });

  it.each([
    ['not an object', 'high', 'filter', /must be a JSON object/],
    ['a list', [SEVERE], 'filter', /must be a JSON object/],
    [
      'an unknown operator',
      { data: { severity: { $regex: '^h' } } },
      'filter.data.severity.$regex',
      /unknown operator \$regex; the operators are \$eq, /,
    ],
    ['a value operator at the top', { $in: ['high'] }, 'filter.$in', /stands under a field name/],
    [
      'operators mixed with field names',
      { data: { $or: [{ a: 1 }], severity: 'high' } },
      'filter.data',
      /mixes operators/,
    ],
    [
      'an operand of the wrong kind',
      { data: { severity: { $in: 'high' } } },
      'filter.data.severity.$in',
      /takes an array/,
    ],
    [
      'a string longer than the limit',
      { data: { severity: { $in: ['high', 'critical', 'low', 'x'.repeat(257)] } } },
      'filter.data.severity.$in[3]',
      /longer than 256 characters/,
    ],
    [
      'a list longer than the limit',
      { data: { score: { $nin: Array.from({ length: 101 }, (_, index) => index) } } },
      'filter.data.score.$nin',
      /has 101 items: \$nin takes at most 100/,
    ],
    [
      'more JSON than the limit',
      { data: { note: Array.from({ length: 20 }, () => 'y'.repeat(250)) } },
      'filter',
      /bytes of JSON: a filter is at most 4096/,
    ],
  ])('refuses %s with a 400 naming its path', async (_, filter, field, detail) => {
    const refused = await requests.register(validBody({ filter }));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.errors).toEqual([{ field, detail: expect.stringMatching(detail) }]);

    const { body: endpoint } = await requests.register(validBody({ filter: SEVERE }));
    const patched = await requests.update(endpoint.id, { filter });
    expect(patched.status).toBe(400);
    expect(patched.body.errors).toEqual([{ field, detail: expect.stringMatching(detail) }]);
    expect((await requests.read(endpoint.id)).body.filter).toEqual(SEVERE);
  });

  it('refuses more operators than the limit, and a filter nested deeper than it', async () => {
    const many = await requests.register(validBody({ filter: operators(65) }));
    expect(many.status).toBe(400);
    expect(many.body.errors).toEqual([
      {
        field: expect.stringMatching(/^filter\.f\d+\.\$neq$/),
        detail: expect.stringMatching(/at most 64 operators/),
      },
    ]);
    expect((await requests.register(validBody({ filter: operators(64) }))).status).toBe(201);

    const deep = { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } };
    const refused = await requests.register(validBody({ filter: deep }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { field: expect.stringMatching(/^filter\.a\.b\./), detail: expect.stringMatching(/levels/) },
    ]);
  });

  it('names every problem of a filter, beside the other fields', async () => {
    const refused = await requests.register(
      validBody({
        ordering: 'lifo',
        filter: {
          type: { $like: 'alert.%' },
          data: { severity: { $in: ['high', 'x'.repeat(300)] } },
        },
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { field: string }) => error.field)).toEqual([
      'ordering',
      'filter.type.$like',
      'filter.data.severity.$in[1]',
    ]);
  });

  it('survives a rebuild of the projection from the log', async () => {
    const { body: kept } = await requests.register(validBody({ filter: SEVERE }));
    const { body: removed } = await requests.register(validBody({ filter: SEVERE }));
    await requests.update(removed.id, { filter: null });

    await api.dataSource.transaction((manager) => rebuildEndpointProjection(manager));

    expect((await requests.read(kept.id)).body.filter).toEqual(SEVERE);
    expect((await requests.read(removed.id)).body.filter).toBeNull();
  });

  it('is documented in the OpenAPI document: a free-form object, nullable, always answered', async () => {
    const { body: document } = await http(api.baseUrl, 'GET', '/v1/openapi.json');
    const schemas = document.components.schemas;
    const documented = {
      type: 'object',
      additionalProperties: true,
      nullable: true,
      description: expect.stringMatching(
        /\$eq, \$neq, \$in, \$nin, \$gt, \$gte, \$lt, \$lte, \$exists, \$startsWith, \$and, \$or, \$not.*Example: \{"data": \{"severity": \{"\$in": \["high", "critical"\]\}\}\}/,
      ),
    };
    for (const schema of ['RegisterWebhookRequest', 'UpdateWebhookRequest']) {
      expect(schemas[schema].properties.filter).toMatchObject(documented);
      expect(schemas[schema].required ?? []).not.toContain('filter');
    }
    expect(schemas.WebhookEndpointResponse.properties.filter).toMatchObject(documented);
    expect(schemas.WebhookEndpointResponse.required).toContain('filter');
    expect(schemas.WebhookEndpointResponse.properties.filter.description).not.toMatch(/https?:/);
  });

  describe('POST /v1/webhooks/{id}/filter/test', () => {
    const sample = (severity: string, type = 'alert.created') => ({
      id: 'evt_sample',
      type,
      created_at: '2026-11-27T12:00:00Z',
      tenant_id: 'ten_sample',
      data: { alert_id: 'alr_1', severity },
    });
    const test = (id: string, body: unknown, as = key) =>
      http(api.baseUrl, 'POST', `/v1/webhooks/${id}/filter/test`, { key: as, json: body });

    it("answers whether a sample matches the endpoint's filter, and which clause decided", async () => {
      const { body: endpoint } = await requests.register(validBody({ filter: SEVERE }));
      const critical = await test(endpoint.id, { envelope: sample('critical') });
      expect(critical.status).toBe(200);
      expect(critical.body).toEqual({
        matched: true,
        decided_by: 'filter.data.severity.$in',
        filter: SEVERE,
      });
      const low = await test(endpoint.id, { envelope: sample('low') });
      expect(low.body).toEqual({
        matched: false,
        decided_by: 'filter.data.severity.$in',
        filter: SEVERE,
      });
    });

    it('names the failing clause of a conjunction, the first in $and order when several fail', async () => {
      const filter = { type: 'alert.created', data: { severity: 'high', score: { $gte: 7 } } };
      const { body: endpoint } = await requests.register(validBody({ filter }));
      const scored = (type: string, score: number) => ({
        ...sample('high', type),
        data: { severity: 'high', score },
      });
      expect(
        (await test(endpoint.id, { envelope: scored('alert.created', 3) })).body,
      ).toMatchObject({
        matched: false,
        decided_by: 'filter.data.score.$gte',
      });
      expect(
        (await test(endpoint.id, { envelope: scored('incident.created', 9) })).body,
      ).toMatchObject({
        matched: false,
        decided_by: 'filter.type',
      });
      // An object's keys come back in PostgreSQL's jsonb order; $and keeps the order it is given.
      const ordered = { $and: [{ type: 'alert.created' }, { data: { score: { $gte: 7 } } }] };
      const { body: inOrder } = await requests.register(validBody({ filter: ordered }));
      expect(
        (await test(inOrder.id, { envelope: scored('incident.created', 3) })).body,
      ).toMatchObject({
        matched: false,
        decided_by: 'filter.$and[0].type',
      });
    });

    it('matches everything, decided by nothing, when the endpoint has no filter', async () => {
      const { body: endpoint } = await requests.register(validBody());
      const response = await test(endpoint.id, { envelope: sample('low') });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ matched: true, decided_by: null, filter: null });
    });

    it("tries a filter given in the body instead of the endpoint's, and changes nothing", async () => {
      const { body: endpoint } = await requests.register(validBody({ filter: SEVERE }));
      const tried = {
        $or: [{ data: { severity: 'low' } }, { type: { $startsWith: 'incident.' } }],
      };
      const response = await test(endpoint.id, { envelope: sample('low'), filter: tried });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        matched: true,
        decided_by: 'filter.$or[0].data.severity',
        filter: tried,
      });
      const none = await test(endpoint.id, { envelope: sample('low'), filter: null });
      expect(none.body).toEqual({ matched: true, decided_by: null, filter: null });
      expect((await requests.read(endpoint.id)).body.filter).toEqual(SEVERE);
      expect(await requests.eventsOf(endpoint.id)).toHaveLength(1);
    });

    it.each([
      ['no envelope', {}, [{ field: 'envelope', detail: 'is required' }]],
      [
        'an envelope that is not an object',
        { envelope: [sample('low')] },
        [{ field: 'envelope', detail: expect.stringMatching(/JSON object/) }],
      ],
      [
        'a tried filter the language refuses',
        { envelope: sample('low'), filter: { data: { severity: { $regex: '^h' } } } },
        [
          {
            field: 'filter.data.severity.$regex',
            detail: expect.stringMatching(/unknown operator/),
          },
        ],
      ],
      [
        'a tried filter over a limit',
        { envelope: sample('low'), filter: operators(65) },
        [
          {
            field: expect.stringMatching(/^filter\.f\d+\.\$neq$/),
            detail: expect.stringMatching(/at most 64 operators/),
          },
        ],
      ],
      [
        'an unknown field',
        { envelope: sample('low'), sample: {} },
        [{ field: 'sample', detail: expect.any(String) }],
      ],
    ])('refuses %s with a 400 naming the field', async (_, body, errors) => {
      const { body: endpoint } = await requests.register(validBody({ filter: SEVERE }));
      const refused = await test(endpoint.id, body);
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual(errors);
    });

    it("answers 404 for another tenant's endpoint and for an unknown one, 403 without the scope", async () => {
      const { body: endpoint } = await requests.register(validBody({ filter: SEVERE }));
      const other = await api.newTenantWithKey(['webhooks:manage']);
      const foreign = await test(endpoint.id, { envelope: sample('high') }, other.key);
      expect(foreign.status).toBe(404);
      expect(JSON.stringify(foreign.body)).not.toContain('severity');
      expect(
        (await test('wh_00000000000000000000000000', { envelope: sample('high') })).status,
      ).toBe(404);
      const reader = await api.newTenantWithKey(['alerts:read']);
      expect((await test(endpoint.id, { envelope: sample('high') }, reader.key)).status).toBe(403);
    });

    it('is documented in the OpenAPI document', async () => {
      const { body: document } = await http(api.baseUrl, 'GET', '/v1/openapi.json');
      const route = document.paths['/v1/webhooks/{id}/filter/test'].post;
      expect(route.description ?? route.responses['200'].description).toMatch(/before saving it/);
      expect(route.responses['200'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/FilterTestResponse',
      );
      expect(Object.keys(route.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '403', '404']),
      );
      const request = document.components.schemas.FilterTestRequest;
      expect(request.required).toEqual(['envelope']);
      expect(request.properties.filter).toMatchObject({ type: 'object', nullable: true });
      expect(document.components.schemas.FilterTestResponse.required.sort()).toEqual([
        'decided_by',
        'filter',
        'matched',
      ]);
    });
  });
});
