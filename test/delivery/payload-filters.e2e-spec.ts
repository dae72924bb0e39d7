import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { http } from '../support/http-client';
import { HttpsReceiver, ReceivedRequest, startHttpsReceiver } from '../support/https-receiver';
import { metricValue } from '../support/metric-value';
import { waitFor } from '../support/wait-for';

const SEVERE = { data: { severity: { $in: ['high', 'critical'] } } };

/**
 * Payload filters (issue 33 item 1, ADR 0046) through the API, JetStream, the engine and an
 * HTTPS receiver: an endpoint with a filter receives only the events it matches, numbered 1..k
 * without gaps for those it refused, which get no delivery; an endpoint without one receives all.
 */
describe('payload filters, through the engine', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    stack = await startDeliveryStack();
    receiver = await startHttpsReceiver({ behaviour: () => ({ status: 200 }) });
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  const requestsTo = (path: string): ReceivedRequest[] =>
    receiver.requests.filter((request) => request.path === path);

  it('delivers to a filtered endpoint only the events its filter matches, numbered without gaps', async () => {
    const { tenantId, key } = await stack.newTenant();
    const filtered = await stack.registerEndpoint(key, `${receiver.url}/severe`);
    const patched = await http(stack.api.baseUrl, 'PATCH', `/v1/webhooks/${filtered.id}`, {
      key,
      json: { filter: SEVERE },
    });
    expect(patched.status).toBe(200);
    await stack.registerEndpoint(key, `${receiver.url}/all`);
    const filteredBefore = await metricValue(
      stack.engine.managementUrl,
      'svc_delivery_filtered_total',
      'reason="filter"',
    );

    const severities = ['low', 'high', 'medium', 'critical', 'low', 'high', 'info'];
    const published = [];
    for (const [index, severity] of severities.entries()) {
      published.push(
        await stack.publish(tenantId, 'alert.created', { alert_id: `alr_${index}`, severity }),
      );
    }
    await waitFor(
      () =>
        Promise.resolve(
          requestsTo('/all').length === severities.length && requestsTo('/severe').length === 3,
        ),
      { what: 'every delivery' },
    );

    const severeIds = published
      .filter((envelope) => ['high', 'critical'].includes(envelope.data.severity as string))
      .map((envelope) => envelope.id);
    const received = requestsTo('/severe');
    expect(received.map((request) => request.headers['x-svc-event-id']).sort()).toEqual(
      [...severeIds].sort(),
    );
    expect(
      received.map((request) => Number(request.headers['x-svc-sequence'])).sort((a, b) => a - b),
    ).toEqual([1, 2, 3]);
    expect(
      requestsTo('/all')
        .map((request) => Number(request.headers['x-svc-sequence']))
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 6, 7]);

    // A refused event has no delivery to the filtered endpoint: only the other one's.
    const refused = published.find((envelope) => envelope.data.severity === 'low')!;
    const { body } = await http(stack.api.baseUrl, 'GET', `/v1/events/${refused.id}/deliveries`, {
      key,
    });
    expect(
      body.data.map((delivery: { endpoint_id: string }) => delivery.endpoint_id),
    ).not.toContain(filtered.id);
    expect(body.data).toHaveLength(1);
    expect(
      await metricValue(
        stack.engine.managementUrl,
        'svc_delivery_filtered_total',
        'reason="filter"',
      ),
    ).toBe(filteredBefore + 4);
  });

  it('sends a test event to a filtered endpoint whatever its filter', async () => {
    const { key } = await stack.newTenant();
    const { id } = await stack.registerEndpoint(key, `${receiver.url}/tested`);
    await http(stack.api.baseUrl, 'PATCH', `/v1/webhooks/${id}`, {
      key,
      json: { filter: { type: 'alert.created' } },
    });
    const test = await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${id}/test`, { key });
    expect(test.status).toBe(200);
    expect(requestsTo('/tested')).toHaveLength(1);
    expect(requestsTo('/tested')[0].headers['x-svc-event-type']).toBe('webhook.test');
  });
});
