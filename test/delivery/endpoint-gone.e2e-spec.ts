import { http } from '../support';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

/**
 * HTTP manners (issue 13, ADR 0027): a receiver that answers 410 Gone disables its endpoint. The
 * delivery is not retried, no new event is delivered to it, deliveries already waiting for a
 * retry are cancelled, and only `POST /v1/webhooks/{id}/recover` makes it active again.
 */
describe('410 Gone disables the endpoint', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    // Long enough that the first event's retry is still waiting when the 410 comes.
    stack = await startDeliveryStack({ DELIVERY_RETRY_SCHEDULE: '3s' });
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  const eventIdOf = (request: { rawBody: Buffer }) =>
    (JSON.parse(request.rawBody.toString('utf8')) as { id: string }).id;

  async function endpointStatus(key: string, id: string): Promise<string> {
    const response = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${id}`, { key });
    expect(response.status).toBe(200);
    return response.body.status as string;
  }

  async function deliveriesOf(key: string, eventId: string) {
    const response = await http(stack.api.baseUrl, 'GET', `/v1/events/${eventId}/deliveries`, {
      key,
    });
    expect(response.status).toBe(200);
    return response.body.data as { endpoint_id: string; status: string; attempts: number }[];
  }

  it('abandons at once, cancels waiting retries, skips new events, and recovers', async () => {
    const path = '/gone';
    const { tenantId, key } = await stack.newTenant();
    const gone = await stack.registerEndpoint(key, `${receiver.url}${path}`);
    const healthy = await stack.registerEndpoint(key, `${receiver.url}/healthy`);
    const toGone = () => receiver.requests.filter((request) => request.path === path);

    // The first event fails once (500) and waits 3 s for its retry; the second meets a 410.
    const waiting = await stack.publish(tenantId);
    let goneAnswered = false;
    receiver.respondWith((request) => {
      if (request.path !== path) {
        return { status: 200 };
      }
      if (eventIdOf(request) === waiting.id) {
        return { status: 500 };
      }
      goneAnswered = true;
      return { status: 410 };
    });
    await waitFor(() => Promise.resolve(toGone().length === 1 || null), {
      what: 'the first attempt',
    });
    const refused = await stack.publish(tenantId);
    await waitFor(async () => ((await endpointStatus(key, gone.id)) === 'disabled' ? true : null), {
      what: 'the endpoint disabled',
      timeoutMs: 10_000,
    });
    expect(goneAnswered).toBe(true);

    // The 410'd delivery is abandoned after its one attempt; the waiting retry is cancelled
    // once due, without a request.
    const [refusedDelivery] = (await deliveriesOf(key, refused.id)).filter(
      (delivery) => delivery.endpoint_id === gone.id,
    );
    expect(refusedDelivery).toMatchObject({ status: 'abandoned', attempts: 1 });
    const cancelled = await waitFor(
      async () => {
        const [delivery] = (await deliveriesOf(key, waiting.id)).filter(
          (row) => row.endpoint_id === gone.id,
        );
        return delivery.status === 'cancelled' ? delivery : null;
      },
      { what: 'the waiting retry cancelled', timeoutMs: 15_000 },
    );
    expect(cancelled.attempts).toBe(1);

    // A new event goes to the tenant's other endpoint only.
    const later = await stack.publish(tenantId);
    await waitFor(
      () =>
        Promise.resolve(
          receiver.requests.some(
            (request) => request.path === '/healthy' && eventIdOf(request) === later.id,
          ) || null,
        ),
      { what: 'the later event at the healthy endpoint' },
    );
    // The receiver has it before the engine records it: wait for the record.
    const laterDeliveries = await waitFor(
      async () => {
        const rows = await deliveriesOf(key, later.id);
        return rows.some((row) => row.status === 'succeeded') ? rows : null;
      },
      { what: 'the later delivery recorded' },
    );
    expect(laterDeliveries.map((delivery) => delivery.endpoint_id)).toEqual([healthy.id]);
    expect(toGone()).toHaveLength(2);

    // Recovery makes it active; the next event reaches it again.
    receiver.respondWith(() => ({ status: 200 }));
    const recovered = await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${gone.id}/recover`, {
      key,
      json: {},
    });
    expect(recovered.status).toBe(200);
    expect(recovered.body.endpoint.status).toBe('active');
    const afterRecovery = await stack.publish(tenantId);
    await waitFor(
      () =>
        Promise.resolve(
          toGone().some((request) => eventIdOf(request) === afterRecovery.id) || null,
        ),
      { what: 'a delivery to the recovered endpoint' },
    );
  });

  it('keeps the endpoint history in the log: a disabled event names the delivery and the status', async () => {
    const { tenantId, key } = await stack.newTenant();
    receiver.respondWith((request) => ({ status: request.path === '/gone-2' ? 410 : 200 }));
    const endpoint = await stack.registerEndpoint(key, `${receiver.url}/gone-2`);
    await stack.publish(tenantId);
    await waitFor(
      async () => ((await endpointStatus(key, endpoint.id)) === 'disabled' ? true : null),
      { what: 'the endpoint disabled' },
    );
    const { Client } = await import('pg');
    const client = new Client({ connectionString: stack.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ type: string; data: Record<string, unknown> }>(
        'SELECT type, data FROM events WHERE stream_id = $1 ORDER BY version',
        [endpoint.id],
      );
      expect(rows.map((row) => row.type)).toEqual([
        'webhook_endpoint.registered',
        'webhook_endpoint.disabled',
      ]);
      expect(rows[1].data).toMatchObject({ reason: 'gone', status_code: 410 });
      expect(rows[1].data.delivery_id).toMatch(/^del_/);
    } finally {
      await client.end();
    }
  });
});
