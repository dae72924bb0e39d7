import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

/**
 * HTTP manners (issue 13): a receiver that answers 429 or 503 with `Retry-After` is not called
 * again before then, though the schedule would retry sooner; the attempt budget is unchanged.
 */
describe('Retry-After on 429 and 503', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    // A schedule far shorter than what the receiver asks for.
    stack = await startDeliveryStack({ DELIVERY_RETRY_SCHEDULE: '100ms' });
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  for (const status of [429, 503]) {
    it(`waits as long as a ${status} asks before the next attempt, then delivers`, async () => {
      const path = `/busy-${status}`;
      receiver.respondWith((request) =>
        request.path === path && receiver.requests.filter((seen) => seen.path === path).length === 1
          ? { status, headers: { 'retry-after': '2' } }
          : { status: 200 },
      );
      const { tenantId, key } = await stack.newTenant();
      await stack.registerEndpoint(key, `${receiver.url}${path}`);
      await stack.publish(tenantId);

      const attempts = await waitFor(
        () => {
          const seen = receiver.requests.filter((request) => request.path === path);
          return Promise.resolve(seen.length === 2 ? seen : null);
        },
        { timeoutMs: 15_000, what: 'the second attempt' },
      );
      const waited = attempts[1].receivedAt - attempts[0].receivedAt;
      expect(waited).toBeGreaterThanOrEqual(1900);
      expect(Number(attempts[1].headers['x-svc-delivery-attempt'])).toBe(2);
    });
  }
});
