import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { http } from '../support/http-client';
import { HttpsReceiver, ReceivedRequest, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

/**
 * Sequence numbers (issue 32, ADR 0045) through the API, JetStream, the engine and an HTTPS
 * receiver: each endpoint's deliveries carry `X-SVC-Sequence` 1, 2, 3…, the same on a retry and
 * on a replay, recorded with the delivery; a test event carries none.
 */
describe('X-SVC-Sequence', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;
  /** Paths answered 500 while listed. */
  const failing = new Set<string>();

  beforeAll(async () => {
    stack = await startDeliveryStack({ DELIVERY_RETRY_SCHEDULE: '200ms' });
    receiver = await startHttpsReceiver({
      behaviour: (request) => ({ status: failing.has(request.path) ? 500 : 200 }),
    });
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  const requestsTo = (path: string): ReceivedRequest[] =>
    receiver.requests.filter((request) => request.path === path);
  const sequenceOf = (request: ReceivedRequest) => request.headers['x-svc-sequence'];

  it("numbers each endpoint's deliveries 1..n, apart from another endpoint's", async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/both`);
    await stack.publish(tenantId);
    await waitFor(() => Promise.resolve(requestsTo('/both').length === 1), {
      what: 'the first delivery',
    });
    await stack.registerEndpoint(key, `${receiver.url}/later`);
    for (let index = 0; index < 5; index += 1) {
      await stack.publish(tenantId);
    }
    await waitFor(
      () => Promise.resolve(requestsTo('/both').length === 6 && requestsTo('/later').length === 5),
      { what: 'every delivery' },
    );
    const numbers = (path: string) => requestsTo(path).map(sequenceOf).map(Number);
    expect(numbers('/both').sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(numbers('/later').sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
  });

  it('sends a retry and a replay under the same number, and records it with the delivery', async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/flaky`);
    await stack.publish(tenantId);
    failing.add('/flaky');
    const envelope = await stack.publish(tenantId);
    await waitFor(() => Promise.resolve(requestsTo('/flaky').length >= 3), {
      what: 'a first attempt and a retry of the second event',
    });
    failing.delete('/flaky');
    const [delivery] = await waitFor(
      async () => {
        const { body } = await http(
          stack.api.baseUrl,
          'GET',
          `/v1/events/${envelope.id}/deliveries`,
          { key },
        );
        return body.data?.[0]?.status === 'succeeded' ? body.data : null;
      },
      { what: 'the delivery to succeed' },
    );
    const ofSecond = requestsTo('/flaky').filter(
      (request) => request.headers['x-svc-event-id'] === envelope.id,
    );
    expect(ofSecond.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ofSecond.map(sequenceOf))).toEqual(new Set(['2']));
    expect(delivery.sequence).toBe(2);

    const sentBefore = requestsTo('/flaky').length;
    const replay = await http(stack.api.baseUrl, 'POST', `/v1/deliveries/${delivery.id}/replay`, {
      key,
    });
    expect(replay.status).toBe(200);
    const replayed = await waitFor(
      () => Promise.resolve(requestsTo('/flaky')[sentBefore] ?? null),
      { what: 'the replayed delivery' },
    );
    expect(replayed.headers['x-svc-event-id']).toBe(envelope.id);
    expect(sequenceOf(replayed)).toBe('2');
    // The receiver has the replay before its attempt is recorded (the answer comes first).
    const attempts = await waitFor(
      async () => {
        const rows: { sequence: number }[] = await stack.api.dataSource.query(
          'SELECT sequence FROM delivery_attempts WHERE delivery_id = $1',
          [delivery.id],
        );
        return rows.length >= 3 ? rows : null;
      },
      { what: "the replay's attempt recorded" },
    );
    expect(new Set(attempts.map((attempt) => Number(attempt.sequence)))).toEqual(new Set([2]));
  });

  it('sends a test event without a number, and it takes none from the endpoint', async () => {
    const { tenantId, key } = await stack.newTenant();
    const { id } = await stack.registerEndpoint(key, `${receiver.url}/probed`);
    const probe = await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${id}/test`, { key });
    expect(probe.status).toBeLessThan(300);
    await waitFor(() => Promise.resolve(requestsTo('/probed').length === 1), {
      what: 'the test event',
    });
    await stack.publish(tenantId);
    await waitFor(() => Promise.resolve(requestsTo('/probed').length === 2), {
      what: 'the event after it',
    });
    const [test, event] = requestsTo('/probed');
    expect(sequenceOf(test)).toBeUndefined();
    expect(sequenceOf(event)).toBe('1');
  });
});
