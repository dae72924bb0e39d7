import { newId } from '@svc/contracts';
import { appendToStream } from '@svc/event-store';
import { ENDPOINT_EVENT_TYPES, rebuildEndpointProjection } from '@svc/webhook-endpoints';
import { http, RunningApi, startApi } from '../support';
import { endpointRequests } from '../support/endpoint-requests';

const validBody = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/signed',
  events: ['alert.*'],
  secret: 'signature-schemes-secret-01',
  ...overrides,
});

/**
 * `signature_schemes` on the endpoint resource (ADR 0044, issue 32 items 1 and 6): chosen at
 * registration (default HMAC only) and by PATCH, shown in every answer, kept in the endpoint's
 * log and projection, refused with a 400 naming the field when it is not a non-empty subset.
 */
describe('the signature schemes of a webhook endpoint', () => {
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

  it('is HMAC only when the registration does not say, in the answer, the log and the row', async () => {
    const response = await requests.register(validBody());
    expect(response.status).toBe(201);
    expect(response.body.signature_schemes).toEqual(['hmac-sha256']);
    expect((await requests.read(response.body.id)).body.signature_schemes).toEqual(['hmac-sha256']);
    const [registered] = await requests.eventsOf(response.body.id);
    expect(registered.data.signature_schemes).toEqual(['hmac-sha256']);
    expect(await requests.columnOf<string[]>(response.body.id, 'signature_schemes')).toEqual([
      'hmac-sha256',
    ]);
  });

  it.each([[['hmac-sha256', 'ed25519']], [['ed25519', 'hmac-sha256']], [['ed25519']]])(
    'registers %j as given, and shows it in the list',
    async (schemes) => {
      const response = await requests.register(validBody({ signature_schemes: schemes }));
      expect(response.status).toBe(201);
      expect(response.body.signature_schemes).toEqual(schemes);
      const [registered] = await requests.eventsOf(response.body.id);
      expect(registered.data.signature_schemes).toEqual(schemes);
      expect(await requests.columnOf<string[]>(response.body.id, 'signature_schemes')).toEqual(
        schemes,
      );
      const list = await http(api.baseUrl, 'GET', '/v1/webhooks?limit=100', { key });
      const listed = list.body.data.find((e: { id: string }) => e.id === response.body.id);
      expect(listed.signature_schemes).toEqual(schemes);
    },
  );

  it('is changed by a PATCH that names it, and kept by one that does not', async () => {
    const { body: endpoint } = await requests.register(validBody());
    const migrating = await requests.update(endpoint.id, {
      signature_schemes: ['hmac-sha256', 'ed25519'],
    });
    expect(migrating.status).toBe(200);
    expect(migrating.body.signature_schemes).toEqual(['hmac-sha256', 'ed25519']);

    const otherChange = await requests.update(endpoint.id, { events: ['incident.*'] });
    expect(otherChange.status).toBe(200);
    expect(otherChange.body.signature_schemes).toEqual(['hmac-sha256', 'ed25519']);

    const migrated = await requests.update(endpoint.id, { signature_schemes: ['ed25519'] });
    expect(migrated.body.signature_schemes).toEqual(['ed25519']);
    expect((await requests.read(endpoint.id)).body.signature_schemes).toEqual(['ed25519']);
    expect(await requests.columnOf<string[]>(endpoint.id, 'signature_schemes')).toEqual([
      'ed25519',
    ]);

    const updates = (await requests.eventsOf(endpoint.id)).filter(
      (event) => event.type === 'webhook_endpoint.updated',
    );
    expect(updates.map((event) => event.data.changes)).toEqual([
      { signature_schemes: ['hmac-sha256', 'ed25519'] },
      { events: ['incident.*'] },
      { signature_schemes: ['ed25519'] },
    ]);
  });

  it('is shown by the rotation and recovery answers too', async () => {
    const { body: endpoint } = await requests.register(
      validBody({ signature_schemes: ['ed25519'] }),
    );
    const rotated = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/secret/rotate`, {
      key,
      json: {},
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.endpoint.signature_schemes).toEqual(['ed25519']);
    const recovered = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/recover`, {
      key,
      json: {},
    });
    expect(recovered.status).toBe(200);
    expect(recovered.body.endpoint.signature_schemes).toEqual(['ed25519']);
  });

  it.each([
    ['an unknown scheme', ['hmac-sha256', 'rsa-sha256'], /unknown signature schemes: rsa-sha256/],
    ['an empty list', [], /at least one/],
    ['repeats', ['ed25519', 'ed25519'], /repeated signature schemes: ed25519/],
    ['a string, not an array', 'ed25519', /array/],
    ['an array of numbers', [1], /strings/],
    ['null', null, /null/],
  ])('refuses %s with a 400 naming signature_schemes', async (_, value, detail) => {
    const refused = await requests.register(validBody({ signature_schemes: value }));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.errors).toEqual([
      { field: 'signature_schemes', detail: expect.stringMatching(detail) },
    ]);

    const { body: endpoint } = await requests.register(
      validBody({ signature_schemes: ['ed25519'] }),
    );
    const patched = await requests.update(endpoint.id, { signature_schemes: value });
    expect(patched.status).toBe(400);
    expect(patched.body.errors).toEqual([
      { field: 'signature_schemes', detail: expect.stringMatching(detail) },
    ]);
    expect((await requests.read(endpoint.id)).body.signature_schemes).toEqual(['ed25519']);
  });

  it('survives a rebuild of the projection from the log', async () => {
    const { body: chosen } = await requests.register(validBody({ signature_schemes: ['ed25519'] }));
    const { body: changed } = await requests.register(validBody());
    await requests.update(changed.id, { signature_schemes: ['ed25519', 'hmac-sha256'] });
    // A registration recorded before ADR 0044 has no field (the log is append-only, so it is
    // appended as it was then): it folds to HMAC only.
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
            secret_ciphertext: 'sealed-before-adr-0044',
            status: 'active',
            environment: 'live',
            created_at: new Date().toISOString(),
          },
          metadata: { tenant_id: tenantId },
        },
      ]),
    );

    await api.dataSource.transaction((manager) => rebuildEndpointProjection(manager));

    expect((await requests.read(chosen.id)).body.signature_schemes).toEqual(['ed25519']);
    expect((await requests.read(changed.id)).body.signature_schemes).toEqual([
      'ed25519',
      'hmac-sha256',
    ]);
    expect((await requests.read(older.id)).body.signature_schemes).toEqual(['hmac-sha256']);
  });

  it('is documented in the OpenAPI document: an optional enum list with its default, always answered', async () => {
    const { body: document } = await http(api.baseUrl, 'GET', '/v1/openapi.json');
    const schemas = document.components.schemas;
    const documented = {
      type: 'array',
      items: { type: 'string', enum: ['hmac-sha256', 'ed25519'] },
      minItems: 1,
      uniqueItems: true,
    };
    expect(schemas.RegisterWebhookRequest.properties.signature_schemes).toMatchObject({
      ...documented,
      default: ['hmac-sha256'],
    });
    expect(schemas.UpdateWebhookRequest.properties.signature_schemes).toMatchObject(documented);
    for (const request of ['RegisterWebhookRequest', 'UpdateWebhookRequest']) {
      expect(schemas[request].required ?? []).not.toContain('signature_schemes');
    }
    expect(schemas.WebhookEndpointResponse.properties.signature_schemes).toMatchObject(documented);
    expect(schemas.WebhookEndpointResponse.required).toContain('signature_schemes');
  });
});
