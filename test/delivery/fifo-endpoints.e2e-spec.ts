import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { http } from '../support/http-client';
import { HttpsReceiver, ReceivedRequest, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

/**
 * FIFO endpoints (issue 32 item 4, ADR 0045) through the API, JetStream, the engine and an HTTPS
 * receiver: an endpoint registered with `ordering: "fifo"` gets its deliveries one at a time in
 * sequence order; a failing head holds only its own queue, until it succeeds or is abandoned.
 */
describe('ordering: "fifo"', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;
  /** Answered 500 while listed, by path and sequence number. */
  const failing = new Set<string>();
  let inFlight = 0;
  let mostInFlight = 0;

  beforeAll(async () => {
    stack = await startDeliveryStack({
      DELIVERY_RETRY_SCHEDULE: '300ms',
      DELIVERY_MAX_ATTEMPTS: '3',
    });
    receiver = await startHttpsReceiver({
      behaviour: async (request) => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight -= 1;
        const key = `${request.path} ${String(request.headers['x-svc-sequence'])}`;
        return { status: failing.has(key) ? 500 : 200 };
      },
    });
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  const requestsTo = (path: string): ReceivedRequest[] =>
    receiver.requests.filter((request) => request.path === path);
  const sequencesTo = (path: string) =>
    requestsTo(path).map((request) => Number(request.headers['x-svc-sequence']));

  async function registerFifo(key: string, path: string): Promise<string> {
    const response = await http(stack.api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: `${receiver.url}${path}`,
        events: ['alert.*'],
        secret: `secret-${path}-0123456789abcdef`,
        ordering: 'fifo',
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.ordering).toBe('fifo');
    return response.body.id as string;
  }

  it('sends one delivery at a time, in sequence order', async () => {
    const { tenantId, key } = await stack.newTenant();
    await registerFifo(key, '/in-order');
    mostInFlight = 0;
    await Promise.all(Array.from({ length: 12 }, () => stack.publish(tenantId)));
    await waitFor(() => Promise.resolve(requestsTo('/in-order').length === 12), {
      what: 'twelve deliveries',
      timeoutMs: 30_000,
    });
    expect(sequencesTo('/in-order')).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    expect(mostInFlight).toBe(1);
  });

  it('holds the queue behind a failing head until it succeeds, and delivers the rest after it', async () => {
    const { tenantId, key } = await stack.newTenant();
    await registerFifo(key, '/flaky-head');
    failing.add('/flaky-head 1');
    for (let index = 0; index < 3; index += 1) {
      await stack.publish(tenantId);
    }
    await waitFor(() => Promise.resolve(requestsTo('/flaky-head').length >= 2), {
      what: 'a retry of the head',
    });
    failing.delete('/flaky-head 1');
    await waitFor(() => Promise.resolve(new Set(sequencesTo('/flaky-head')).size === 3), {
      what: 'the rest of the queue',
    });
    const sequences = sequencesTo('/flaky-head');
    // Every attempt of the head comes before the first of the next.
    expect(sequences.lastIndexOf(1)).toBeLessThan(sequences.indexOf(2));
    expect(sequences.slice(sequences.indexOf(2))).toEqual([2, 3]);
  });

  it('moves on past an abandoned head, and keeps another endpoint of the tenant unheld', async () => {
    const { tenantId, key } = await stack.newTenant();
    const fifoId = await registerFifo(key, '/abandoned-head');
    await stack.registerEndpoint(key, `${receiver.url}/unordered`);
    failing.add('/abandoned-head 1');
    const first = await stack.publish(tenantId);
    const second = await stack.publish(tenantId);
    // The unordered endpoint has both at once, while the FIFO head is still being retried.
    await waitFor(() => Promise.resolve(requestsTo('/unordered').length === 2), {
      what: 'the unordered endpoint',
    });
    expect(sequencesTo('/abandoned-head')).not.toContain(2);

    await waitFor(() => Promise.resolve(sequencesTo('/abandoned-head').includes(2)), {
      what: 'the delivery after the abandoned head',
    });
    const sequences = sequencesTo('/abandoned-head');
    expect(sequences).toEqual([1, 1, 1, 2]);
    const deliveries = await http(stack.api.baseUrl, 'GET', `/v1/events/${first.id}/deliveries`, {
      key,
    });
    expect(
      deliveries.body.data.find(
        (delivery: { endpoint_id: string }) => delivery.endpoint_id === fifoId,
      ),
    ).toMatchObject({ status: 'abandoned', attempts: 3 });
    const fromSecond = requestsTo('/abandoned-head').find(
      (request) => request.headers['x-svc-event-id'] === second.id,
    );
    expect(fromSecond?.headers['x-svc-sequence']).toBe('2');
  });
});
