import { newId } from '@svc/contracts';
import { appendToStream } from '@svc/event-store';
import { ENDPOINT_EVENT_TYPES, rebuildEndpointProjection } from '@svc/webhook-endpoints';
import { http, RunningApi, startApi } from '../support';
import { endpointRequests } from '../support/endpoint-requests';

const validBody = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/ordered',
  events: ['alert.*'],
  secret: 'endpoint-ordering-secret-01',
  ...overrides,
});

/**
 * `ordering` on the endpoint resource (ADR 0045, issue 32 items 4 and 6): chosen at registration
 * (default unordered) and by PATCH, shown in every answer, kept in the endpoint's log and
 * projection, refused with a 400 naming the field when it is not one of the known values.
 * How a FIFO endpoint's deliveries are sent is the engine's, tested with it.
 */
describe('the ordering of a webhook endpoint', () => {
  let api: RunningApi;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    api = await startApi();
    ({ key, tenantId } = await api.newTenantWithKey(['webhooks:manage']));
    requests = endpointRequests(api, key);
  });
  afterAll(() => api.close());

  let requests: ReturnType<typeof endpointRequests>;

  it('is unordered when the registration does not say, in the answer, the log and the row', async () => {
    const response = await requests.register(validBody());
    expect(response.status).toBe(201);
    expect(response.body.ordering).toBe('unordered');
    expect((await requests.read(response.body.id)).body.ordering).toBe('unordered');
    const [registered] = await requests.eventsOf(response.body.id);
    expect(registered.data.ordering).toBe('unordered');
    expect(await requests.columnOf<string>(response.body.id, 'ordering')).toBe('unordered');
  });

  it.each(['fifo', 'unordered'])(
    'registers %j as given, and shows it in the list',
    async (ordering) => {
      const response = await requests.register(validBody({ ordering }));
      expect(response.status).toBe(201);
      expect(response.body.ordering).toBe(ordering);
      const [registered] = await requests.eventsOf(response.body.id);
      expect(registered.data.ordering).toBe(ordering);
      expect(await requests.columnOf<string>(response.body.id, 'ordering')).toBe(ordering);
      const list = await http(api.baseUrl, 'GET', '/v1/webhooks?limit=100', { key });
      const listed = list.body.data.find((e: { id: string }) => e.id === response.body.id);
      expect(listed.ordering).toBe(ordering);
    },
  );

  it('is changed by a PATCH that names it, and kept by one that does not', async () => {
    const { body: endpoint } = await requests.register(validBody());
    const ordered = await requests.update(endpoint.id, { ordering: 'fifo' });
    expect(ordered.status).toBe(200);
    expect(ordered.body.ordering).toBe('fifo');

    const otherChange = await requests.update(endpoint.id, { events: ['incident.*'] });
    expect(otherChange.status).toBe(200);
    expect(otherChange.body.ordering).toBe('fifo');

    const unordered = await requests.update(endpoint.id, { ordering: 'unordered' });
    expect(unordered.body.ordering).toBe('unordered');
    expect((await requests.read(endpoint.id)).body.ordering).toBe('unordered');
    expect(await requests.columnOf<string>(endpoint.id, 'ordering')).toBe('unordered');

    const updates = (await requests.eventsOf(endpoint.id)).filter(
      (event) => event.type === 'webhook_endpoint.updated',
    );
    expect(updates.map((event) => event.data.changes)).toEqual([
      { ordering: 'fifo' },
      { events: ['incident.*'] },
      { ordering: 'unordered' },
    ]);
  });

  it('is enough on its own for a PATCH, and is among the fields an empty one is asked for', async () => {
    const { body: endpoint } = await requests.register(validBody());
    const response = await requests.update(endpoint.id, { ordering: 'fifo' });
    expect(response.status).toBe(200);
    const empty = await requests.update(endpoint.id, {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([
      {
        field: '(body)',
        detail: expect.stringMatching(
          /signature_schemes, ordering, filter, auth, retry_schedule, timeout_seconds$/,
        ),
      },
    ]);
  });

  it('is shown by the rotation and recovery answers too', async () => {
    const { body: endpoint } = await requests.register(validBody({ ordering: 'fifo' }));
    const rotated = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/secret/rotate`, {
      key,
      json: {},
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.endpoint.ordering).toBe('fifo');
    const recovered = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/recover`, {
      key,
      json: {},
    });
    expect(recovered.status).toBe(200);
    expect(recovered.body.endpoint.ordering).toBe('fifo');
  });

  it.each([
    ['an unknown value', 'lifo', /unknown ordering: lifo; known: unordered, fifo/],
    ['another spelling', 'FIFO', /unknown ordering: FIFO/],
    ['an empty string', '', /unknown ordering: ; known/],
    ['a number', 1, /must be a string/],
    ['a list', ['fifo'], /must be a string/],
    ['null', null, /null/],
  ])('refuses %s with a 400 naming ordering', async (_, value, detail) => {
    const refused = await requests.register(validBody({ ordering: value }));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.errors).toEqual([
      { field: 'ordering', detail: expect.stringMatching(detail) },
    ]);

    const { body: endpoint } = await requests.register(validBody({ ordering: 'fifo' }));
    const patched = await requests.update(endpoint.id, { ordering: value });
    expect(patched.status).toBe(400);
    expect(patched.body.errors).toEqual([
      { field: 'ordering', detail: expect.stringMatching(detail) },
    ]);
    expect((await requests.read(endpoint.id)).body.ordering).toBe('fifo');
  });

  it('refuses an unknown value beside other problems, naming each field', async () => {
    const refused = await requests.register(validBody({ ordering: 'lifo', signature_schemes: [] }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { field: string }) => error.field).sort()).toEqual([
      'ordering',
      'signature_schemes',
    ]);
  });

  it('survives a rebuild of the projection from the log', async () => {
    const { body: chosen } = await requests.register(validBody({ ordering: 'fifo' }));
    const { body: changed } = await requests.register(validBody());
    await requests.update(changed.id, { ordering: 'fifo' });
    // A registration recorded before ADR 0045 has no field (the log is append-only, so it is
    // appended as it was then): it folds to unordered.
    const older = { id: newId('wh') };
    await api.dataSource.transaction((manager) =>
      appendToStream(manager, older.id, 0, [
        {
          type: ENDPOINT_EVENT_TYPES.registered,
          data: {
            endpoint_id: older.id,
            tenant_id: tenantId,
            url: 'https://hooks.example.com/older',
            events: ['alert.*'],
            secret_ciphertext: 'sealed-before-adr-0045',
            status: 'active',
            environment: 'live',
            signature_schemes: ['hmac-sha256'],
            created_at: new Date().toISOString(),
          },
          metadata: { tenant_id: tenantId },
        },
      ]),
    );

    await api.dataSource.transaction((manager) => rebuildEndpointProjection(manager));

    expect((await requests.read(chosen.id)).body.ordering).toBe('fifo');
    expect((await requests.read(changed.id)).body.ordering).toBe('fifo');
    expect((await requests.read(older.id)).body.ordering).toBe('unordered');
    expect(await requests.columnOf<string>(older.id, 'ordering')).toBe('unordered');
  });

  it('is kept to the known values by the table itself', async () => {
    const { body: endpoint } = await requests.register(validBody());
    await expect(
      api.dataSource.query("UPDATE webhook_endpoints SET ordering = 'lifo' WHERE id = $1", [
        endpoint.id,
      ]),
    ).rejects.toThrow(/check constraint/);
  });

  it('is documented in the OpenAPI document: an optional enum with its default, always answered', async () => {
    const { body: document } = await http(api.baseUrl, 'GET', '/v1/openapi.json');
    const schemas = document.components.schemas;
    const documented = {
      type: 'string',
      enum: ['unordered', 'fifo'],
      description: expect.stringContaining(
        'fifo`: deliveries are sent one at a time in sequence order; the next waits until the one before has succeeded or been abandoned',
      ),
    };
    expect(schemas.RegisterWebhookRequest.properties.ordering).toMatchObject({
      ...documented,
      default: 'unordered',
    });
    expect(schemas.UpdateWebhookRequest.properties.ordering).toMatchObject(documented);
    for (const request of ['RegisterWebhookRequest', 'UpdateWebhookRequest']) {
      expect(schemas[request].required ?? []).not.toContain('ordering');
    }
    expect(schemas.WebhookEndpointResponse.properties.ordering).toMatchObject(documented);
    expect(schemas.WebhookEndpointResponse.required).toContain('ordering');
  });
});
