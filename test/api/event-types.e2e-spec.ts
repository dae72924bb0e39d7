import { EVENT_TYPES, validateEnvelope } from '@svc/contracts';
import { TEST_EVENT_MESSAGE } from '@svc/deliveries';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { http, RunningApi, startApi } from '../support';

/** `GET /v1/event-types` (ADR 0004): the catalogue registration validates against. */
describe('the event type catalogue', () => {
  let api: RunningApi;
  let key: string;

  beforeAll(async () => {
    api = await startApi();
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
  });
  afterAll(() => api.close());

  it('lists every type with its family, a description and a JSON Schema of its data', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/event-types', { key });
    expect(response.status).toBe(200);
    const entries = response.body.data as {
      type: string;
      family: string;
      description: string;
      data_schema: Record<string, unknown>;
    }[];
    expect(entries.map((entry) => entry.type)).toEqual([...EVENT_TYPES]);
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    for (const entry of entries) {
      expect(entry.type.startsWith(`${entry.family}.`)).toBe(true);
      expect(entry.description).not.toBe('');
      expect(() => ajv.compile(entry.data_schema)).not.toThrow();
    }
  });

  it('gives each type an example: a whole envelope whose data its data_schema accepts', async () => {
    const response = await http(api.baseUrl, 'GET', '/v1/event-types', { key });
    const entries = response.body.data as {
      type: string;
      data_schema: Record<string, unknown>;
      example: { type: string; tenant_id: string; data: Record<string, unknown> };
    }[];
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const entry of entries) {
      expect(entry.example.type).toBe(entry.type);
      // As the engine checks every message it is given (spec 2.2).
      expect(validateEnvelope(entry.example)).toMatchObject({ ok: true });
      const validate = ajv.compile(entry.data_schema);
      expect([entry.type, validate(entry.example.data), validate.errors ?? []]).toEqual([
        entry.type,
        true,
        [],
      ]);
    }
    const test = entries.find((entry) => entry.type === 'webhook.test')!;
    expect(test.example.data.message).toBe(TEST_EVENT_MESSAGE);
  });

  it('answers as its OpenAPI schema says, the example included', async () => {
    const document = (await http(api.baseUrl, 'GET', '/v1/openapi.json')).body;
    const entry = document.components.schemas.EventTypeResponse;
    expect(entry.required).toContain('example');
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
    ajv.addSchema(document, 'openapi.json');
    const validate = ajv.getSchema('openapi.json#/components/schemas/EventTypeList')!;
    const response = await http(api.baseUrl, 'GET', '/v1/event-types', { key });
    expect(validate(response.body)).toBe(true);
  });

  it('is what registration accepts: every listed type and family, nothing else', async () => {
    const { data } = (await http(api.baseUrl, 'GET', '/v1/event-types', { key })).body as {
      data: { type: string; family: string }[];
    };
    const families = [...new Set(data.map((entry) => `${entry.family}.*`))];
    const accepted = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/catalogue',
        events: [...data.map((entry) => entry.type), ...families],
        secret: 'catalogue-secret-0001',
      },
    });
    expect(accepted.status).toBe(201);
    const refused = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/x',
        events: ['alert.exploded'],
        secret: 'catalogue-secret-0001',
      },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/alert\.exploded/);
  });

  it('needs a credential with webhooks:manage', async () => {
    expect((await http(api.baseUrl, 'GET', '/v1/event-types')).status).toBe(401);
    const { key: reader } = await api.newTenantWithKey(['tenants:read']);
    expect((await http(api.baseUrl, 'GET', '/v1/event-types', { key: reader })).status).toBe(403);
  });
});
