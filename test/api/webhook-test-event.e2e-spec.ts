import { ApiKeysService } from '@svc/identity';
import { verifySignature } from '@svc/signing';
import {
  changeEndpoint,
  decideDegrade,
  decideDisable,
  EndpointEvent,
  EndpointState,
} from '@svc/webhook-endpoints';
import Ajv from 'ajv';
import { Webhook } from 'standardwebhooks';
import { http } from '../support';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { metricValue } from '../support/metric-value';
import { waitFor } from '../support/wait-for';

/** The API's OpenAPI document, and a validator of each of its schemas. */
async function openApi(baseUrl: string) {
  const document = (await http(baseUrl, 'GET', '/v1/openapi.json')).body;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
  ajv.addSchema(document, 'openapi.json');
  return {
    document,
    schema: (name: string) => ajv.getSchema(`openapi.json#/components/schemas/${name}`)!,
  };
}

/**
 * `POST /v1/webhooks/{id}/test` (ADR 0029): the API stores a `webhook.test` event and starts its
 * delivery, the engine sends it (the API never reaches receivers), and the answer is the
 * attempt, recorded in the delivery log like any other. Through the real API, engine, PostgreSQL
 * and JetStream, to a real HTTPS receiver.
 */
describe('test events', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    stack = await startDeliveryStack();
    receiver = await startHttpsReceiver({
      behaviour: (request) => {
        const path = request.path;
        if (path.startsWith('/fails')) return { status: 500, body: 'boom' };
        if (path.startsWith('/gone')) return { status: 410 };
        if (path.startsWith('/slow')) return { status: 200, delayMs: 1000 };
        return { status: 200, body: 'got it' };
      },
    });
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  const sendTest = (key: string, endpointId: string) =>
    http(stack.api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/test`, { key });

  const requestsTo = (path: string) => receiver.requests.filter((r) => r.path === path);

  async function endpointStatus(key: string, endpointId: string): Promise<string> {
    return (await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpointId}`, { key })).body
      .status as string;
  }

  /** The endpoint's status changed by the log, as the engine's recorder changes it. */
  async function setStatus(
    endpointId: string,
    decide: (state: EndpointState) => EndpointEvent[],
  ): Promise<void> {
    await stack.api.dataSource.transaction((manager) =>
      changeEndpoint(manager, { id: endpointId }, (state) => (state ? decide(state) : []), {
        actor: { kind: 'delivery_engine' },
      }),
    );
  }

  it('sends a signed webhook.test event at once, to an endpoint not subscribed to it, and answers with the attempt', async () => {
    const { tenantId, key } = await stack.newTenant();
    const path = '/ok';
    const { id, secret } = await stack.registerEndpoint(key, `${receiver.url}${path}`, {
      events: ['alert.created'],
    });

    const response = await sendTest(key, id);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      delivery_id: expect.stringMatching(/^del_[0-9a-z]{26}$/),
      event_id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      event_type: 'webhook.test',
      // A test takes no number from the endpoint (ADR 0045).
      sequence: null,
      attempt: 1,
      outcome: 'succeeded',
      status_code: 200,
      error_kind: null,
      error_message: null,
      latency_ms: expect.any(Number),
      response_excerpt: 'got it',
      attempted_at: expect.any(String),
    });
    const eventId = response.body.event_id as string;
    expect(response.headers.get('location')).toBe(`/v1/events/${eventId}/deliveries`);

    const [request] = requestsTo(path);
    expect(requestsTo(path)).toHaveLength(1);
    const envelope = JSON.parse(request.rawBody.toString('utf8'));
    expect(envelope).toEqual({
      id: eventId,
      type: 'webhook.test',
      created_at: expect.stringMatching(/Z$/),
      tenant_id: tenantId,
      data: { endpoint_id: id, message: expect.stringContaining('test event') },
    });
    expect(request.headers['x-svc-event-type']).toBe('webhook.test');
    expect(request.headers['x-svc-delivery-id']).toBe(response.body.delivery_id);
    expect(
      verifySignature(request.rawBody, request.headers['x-svc-signature-256'] as string, secret),
    ).toBe(true);
    expect(
      new Webhook(secret, { format: 'raw' }).verify(
        request.rawBody.toString('utf8'),
        request.headers as Record<string, string>,
      ),
    ).toEqual(envelope);

    // In the delivery log like any attempt.
    const attempts = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${id}/attempts`, { key });
    expect(attempts.body.data).toEqual([response.body]);
    const deliveries = await http(stack.api.baseUrl, 'GET', `/v1/events/${eventId}/deliveries`, {
      key,
    });
    expect(deliveries.body.data).toEqual([
      expect.objectContaining({
        id: response.body.delivery_id,
        event_type: 'webhook.test',
        endpoint_id: id,
        sequence: null,
        status: 'succeeded',
        attempts: 1,
      }),
    ]);
  });

  it('reports a failing receiver: one attempt, never retried, no abandonment counted, the endpoint still active', async () => {
    const { key } = await stack.newTenant();
    const path = '/fails';
    const { id } = await stack.registerEndpoint(key, `${receiver.url}${path}`);
    const abandonedBefore = await metricValue(
      stack.engine.managementUrl,
      'svc_delivery_deliveries_abandoned_total',
    );

    const response = await sendTest(key, id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      attempt: 1,
      outcome: 'failed',
      status_code: 500,
      error_kind: 'http_status',
      response_excerpt: 'boom',
    });
    // Far past the retry schedule of this stack (200 ms): no second attempt came.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(requestsTo(path)).toHaveLength(1);
    const [delivery] = (
      await http(stack.api.baseUrl, 'GET', `/v1/events/${response.body.event_id}/deliveries`, {
        key,
      })
    ).body.data;
    expect(delivery).toMatchObject({ status: 'abandoned', attempts: 1, next_attempt_at: null });
    expect(await endpointStatus(key, id)).toBe('active');
    expect(
      await metricValue(stack.engine.managementUrl, 'svc_delivery_deliveries_abandoned_total'),
    ).toBe(abandonedBefore);

    // Recover's re-drive leaves a failed test alone: it was a probe.
    const recovered = await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${id}/recover`, {
      key,
      json: { redrive_abandoned_since: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(recovered.body).toMatchObject({ redriven_deliveries: 0, more_to_redrive: false });
  });

  it('does not disable an endpoint whose receiver answers the test with 410 Gone', async () => {
    const { key } = await stack.newTenant();
    const { id } = await stack.registerEndpoint(key, `${receiver.url}/gone`);

    const response = await sendTest(key, id);

    expect(response.body).toMatchObject({ outcome: 'failed', status_code: 410 });
    expect(await endpointStatus(key, id)).toBe('active');
  });

  it('tests a degraded and a disabled endpoint too, and leaves their status as it was', async () => {
    const { key } = await stack.newTenant();
    const degraded = await stack.registerEndpoint(key, `${receiver.url}/ok-degraded`);
    const disabled = await stack.registerEndpoint(key, `${receiver.url}/ok-disabled`);
    await setStatus(degraded.id, (state) =>
      decideDegrade({ deliveryId: 'del_00000000000000000000000000' }, state, new Date()),
    );
    await setStatus(disabled.id, (state) =>
      decideDisable({ deliveryId: 'del_00000000000000000000000000' }, state, new Date()),
    );

    for (const [endpoint, status] of [
      [degraded, 'degraded'],
      [disabled, 'disabled'],
    ] as const) {
      const response = await sendTest(key, endpoint.id);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ outcome: 'succeeded', status_code: 200 });
      expect(await endpointStatus(key, endpoint.id)).toBe(status);
    }
    expect(requestsTo('/ok-degraded')).toHaveLength(1);
    expect(requestsTo('/ok-disabled')).toHaveLength(1);
  });

  it("sends a sandbox key's test event to its sandbox endpoint, which no live key can test", async () => {
    const { tenantId, key: sandboxKey } = await stack.api.newTenantWithKey(
      ['webhooks:manage'],
      'test',
    );
    const { id } = await stack.registerEndpoint(sandboxKey, `${receiver.url}/ok-sandbox`);

    const response = await sendTest(sandboxKey, id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ outcome: 'succeeded' });
    expect(requestsTo('/ok-sandbox')).toHaveLength(1);
    const deliveries = await http(
      stack.api.baseUrl,
      'GET',
      `/v1/events/${response.body.event_id}/deliveries`,
      { key: sandboxKey },
    );
    expect(deliveries.body.data).toHaveLength(1);

    // Not even the tenant's own live key: the endpoint belongs to the sandbox (ADR 0018).
    const { key: liveKey } = await new ApiKeysService(stack.api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'live',
    });
    expect((await sendTest(liveKey, id)).status).toBe(404);
    expect(requestsTo('/ok-sandbox')).toHaveLength(1);
  });

  it('lets one test at a time per endpoint: another while one is in flight is 429 with Retry-After', async () => {
    const { key } = await stack.newTenant();
    const path = '/slow';
    const { id } = await stack.registerEndpoint(key, `${receiver.url}${path}`);

    const first = sendTest(key, id);
    await waitFor(() => Promise.resolve(requestsTo(path).length === 1), {
      what: 'the first test to reach the receiver',
    });
    const second = await sendTest(key, id);

    expect(second.status).toBe(429);
    expect(second.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(second.body).toMatchObject({ type: 'urn:svc:problem:too-many-requests', status: 429 });
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await first).status).toBe(200);

    // Once the first is recorded, the next may go.
    const third = await sendTest(key, id);
    expect(third.status).toBe(200);
    expect(requestsTo(path)).toHaveLength(2);
  });

  it('is documented in the OpenAPI document as it answers', async () => {
    const { document, schema } = await openApi(stack.api.baseUrl);
    const operation = document.paths['/v1/webhooks/{id}/test'].post;
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['200', '202', '400', '401', '403', '404', '429']),
    );
    expect(operation.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/AttemptResponse',
    );
    expect(operation.responses['202'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/TestEventPendingResponse',
    );
    expect(operation.responses['202'].headers.Location).toBeDefined();
    expect(operation.responses['429'].content['application/problem+json']).toBeDefined();

    const { key } = await stack.newTenant();
    const { id } = await stack.registerEndpoint(key, `${receiver.url}/ok-documented`);
    const response = await sendTest(key, id);
    expect(response.status).toBe(200);
    expect(schema('AttemptResponse')(response.body)).toBe(true);
  });

  it("answers 404 for an unknown id, a malformed one and another tenant's endpoint", async () => {
    const { key } = await stack.newTenant();
    const other = await stack.newTenant();
    const { id } = await stack.registerEndpoint(other.key, `${receiver.url}/ok-other`);

    for (const target of [id, 'wh_00000000000000000000000000', 'not-an-id']) {
      const response = await sendTest(key, target);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ type: 'urn:svc:problem:not-found' });
    }
    expect(requestsTo('/ok-other')).toHaveLength(0);
  });
});

describe('test events when no engine takes them in time', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    stack = await startDeliveryStack({}, { inProcessEngine: false });
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  it('answers 202 with the delivery to follow, and an engine sends it once it runs', async () => {
    const { key } = await stack.newTenant();
    const { id } = await stack.registerEndpoint(key, `${receiver.url}/later`);

    const response = await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${id}/test`, { key });

    expect(response.status).toBe(202);
    expect(response.body).toEqual({
      delivery_id: expect.stringMatching(/^del_/),
      event_id: expect.stringMatching(/^evt_/),
      status: 'pending',
    });
    expect(
      (await openApi(stack.api.baseUrl)).schema('TestEventPendingResponse')(response.body),
    ).toBe(true);
    const location = response.headers.get('location');
    expect(location).toBe(`/v1/events/${response.body.event_id}/deliveries`);

    await stack.startEngine();
    const [request] = await receiver.waitForRequests(1, 15_000);
    expect(request.headers['x-svc-event-type']).toBe('webhook.test');
    const delivery = await waitFor(
      async () => {
        const [row] = (await http(stack.api.baseUrl, 'GET', location!, { key })).body.data;
        return row?.status === 'succeeded' ? row : null;
      },
      { what: 'the test delivery to be recorded' },
    );
    expect(delivery).toMatchObject({ id: response.body.delivery_id, attempts: 1 });
  });
});
