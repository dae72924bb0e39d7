import { http } from '../support';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { refusedPort, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

describe('failed attempts, retries and endpoint status (spec 3, 6.4, 7)', () => {
  let stack: DeliveryStack;

  beforeAll(async () => {
    // Five attempts a few hundred milliseconds apart instead of 5 s, 30 s, 5 min, 30 min.
    stack = await startDeliveryStack({
      DELIVERY_RETRY_SCHEDULE: '150ms,150ms,150ms,150ms',
      DELIVERY_TIMEOUT: '1s',
    });
  });
  afterAll(() => stack.close());

  const attemptsOf = async (key: string, endpointId: string, count: number) =>
    waitFor(
      async () => {
        const response = await http(
          stack.api.baseUrl,
          'GET',
          `/v1/webhooks/${endpointId}/attempts?limit=100`,
          { key },
        );
        return response.body.data.length >= count ? response.body.data : null;
      },
      { what: `${count} attempts` },
    );

  it.each([
    [
      'an answer of 500',
      { status: 500, body: 'upstream exploded' },
      { status_code: 500, error_kind: 'http_status', response_excerpt: 'upstream exploded' },
    ],
    [
      'a redirect, which is not followed',
      { redirectTo: 'https://elsewhere.example.com/' },
      { status_code: 301, error_kind: 'redirect' },
    ],
    [
      'an answer after the timeout',
      { delayMs: 1500 },
      { status_code: null, error_kind: 'timeout' },
    ],
    [
      'a dropped connection',
      { destroySocket: true as const },
      { status_code: null, error_kind: 'connection_reset' },
    ],
  ])('records %s as a failed attempt', async (_, behaviour, expected) => {
    const receiver = await startHttpsReceiver({ behaviour });
    try {
      const { tenantId, key } = await stack.newTenant();
      const endpoint = await stack.registerEndpoint(key, `${receiver.url}/in`);
      await stack.publish(tenantId);
      const [first] = await attemptsOf(key, endpoint.id, 1);
      expect(first).toMatchObject({ outcome: 'failed', attempt: 1, ...expected });
      expect(first.latency_ms).toEqual(expect.any(Number));
      expect(receiver.requests.length).toBeGreaterThanOrEqual(1);
    } finally {
      await receiver.close();
    }
  });

  it('records a refused connection as a failed attempt', async () => {
    const { tenantId, key } = await stack.newTenant();
    const endpoint = await stack.registerEndpoint(
      key,
      `https://127.0.0.1:${await refusedPort()}/in`,
    );
    await stack.publish(tenantId);
    const [first] = await attemptsOf(key, endpoint.id, 1);
    expect(first).toMatchObject({
      outcome: 'failed',
      status_code: null,
      error_kind: 'connection_refused',
    });
  });

  it('makes five attempts, abandons, degrades the endpoint, and a later success makes it active', async () => {
    const receiver = await startHttpsReceiver({ behaviour: { status: 503 } });
    try {
      const { tenantId, key } = await stack.newTenant();
      const endpoint = await stack.registerEndpoint(key, `${receiver.url}/in`);
      const failing = await stack.publish(tenantId);

      const attempts = await attemptsOf(key, endpoint.id, 5);
      expect(attempts.map((a: { attempt: number }) => a.attempt)).toEqual([5, 4, 3, 2, 1]);
      const delivery = await waitFor(async () => {
        const response = await http(
          stack.api.baseUrl,
          'GET',
          `/v1/events/${failing.id}/deliveries`,
          { key },
        );
        return response.body.data[0]?.status === 'abandoned' ? response.body.data[0] : null;
      });
      expect(delivery).toMatchObject({ attempts: 5, next_attempt_at: null });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.requests).toHaveLength(5);
      const gaps = receiver.requests
        .slice(1)
        .map((r, i) => r.receivedAt - receiver.requests[i].receivedAt);
      gaps.forEach((gap) => expect(gap).toBeGreaterThanOrEqual(140));

      const degraded = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpoint.id}`, { key });
      expect(degraded.body.status).toBe('degraded');

      // A degraded endpoint still receives new events; one success makes it active again.
      receiver.respondWith({ status: 200 });
      await stack.publish(tenantId);
      await waitFor(async () => {
        const response = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpoint.id}`, {
          key,
        });
        return response.body.status === 'active';
      });

      const transitions = await stack.api.dataSource.query(
        `SELECT type FROM events WHERE stream_id = $1 AND type IN ('webhook_endpoint.degraded', 'webhook_endpoint.reactivated') ORDER BY version`,
        [endpoint.id],
      );
      expect(transitions.map((t: { type: string }) => t.type)).toEqual([
        'webhook_endpoint.degraded',
        'webhook_endpoint.reactivated',
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('recovers a degraded endpoint and re-drives the deliveries abandoned since a given time', async () => {
    const receiver = await startHttpsReceiver({ behaviour: { status: 500 } });
    try {
      const { tenantId, key } = await stack.newTenant();
      const endpoint = await stack.registerEndpoint(key, `${receiver.url}/in`);
      const since = new Date(Date.now() - 1000).toISOString();
      const lost = [await stack.publish(tenantId), await stack.publish(tenantId)];
      await waitFor(async () => {
        const statuses = await Promise.all(
          lost.map(
            async (event) =>
              (await http(stack.api.baseUrl, 'GET', `/v1/events/${event.id}/deliveries`, { key }))
                .body.data[0]?.status,
          ),
        );
        return statuses.every((status) => status === 'abandoned');
      });
      expect(
        (await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpoint.id}`, { key })).body.status,
      ).toBe('degraded');

      receiver.respondWith({ status: 204 });
      const recovered = await http(
        stack.api.baseUrl,
        'POST',
        `/v1/webhooks/${endpoint.id}/recover`,
        {
          key,
          json: { redrive_abandoned_since: since },
        },
      );
      expect(recovered.status).toBe(200);
      expect(recovered.body).toEqual({
        endpoint: expect.objectContaining({ id: endpoint.id, status: 'active' }),
        redriven_deliveries: 2,
        more_to_redrive: false,
      });

      await waitFor(async () => {
        const statuses = await Promise.all(
          lost.map(
            async (event) =>
              (await http(stack.api.baseUrl, 'GET', `/v1/events/${event.id}/deliveries`, { key }))
                .body.data[0],
          ),
        );
        return statuses.every((d) => d.status === 'succeeded' && d.attempts === 6);
      });
      const successes = receiver.requests.filter((r) =>
        lost.some((e) => r.headers['x-svc-event-id'] === e.id),
      );
      expect(successes.length).toBe(12);
      expect(new Set(successes.slice(-2).map((r) => r.headers['x-svc-delivery-attempt']))).toEqual(
        new Set(['6']),
      );
    } finally {
      await receiver.close();
    }
  });

  it('recovers without re-driving when no time is given, and refuses a malformed time', async () => {
    const { key } = await stack.newTenant();
    const receiver = await startHttpsReceiver();
    try {
      const endpoint = await stack.registerEndpoint(key, `${receiver.url}/in`);
      const plain = await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/recover`, {
        key,
      });
      expect(plain.status).toBe(200);
      expect(plain.body.redriven_deliveries).toBe(0);
      expect(plain.body.more_to_redrive).toBe(false);
      const bad = await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/recover`, {
        key,
        json: { redrive_abandoned_since: 'yesterday' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].field).toBe('redrive_abandoned_since');
      const other = await stack.newTenant();
      expect(
        (
          await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${endpoint.id}/recover`, {
            key: other.key,
          })
        ).status,
      ).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});
