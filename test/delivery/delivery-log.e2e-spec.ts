import { runSvc } from '../support/cli-runner';
import { http } from '../support';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

describe('the delivery log and its projections (spec 6; DESIGN "Event sourcing")', () => {
  let stack: DeliveryStack;
  const receivers: HttpsReceiver[] = [];

  beforeAll(async () => {
    stack = await startDeliveryStack({
      DELIVERY_RETRY_SCHEDULE: '100ms',
      DELIVERY_MAX_ATTEMPTS: '3',
      DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT: '1',
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack.close();
  });

  const receiver = async (behaviour?: Parameters<typeof startHttpsReceiver>[0]) => {
    const started = await startHttpsReceiver(behaviour);
    receivers.push(started);
    return started;
  };

  it('pages attempts newest first, filters by outcome, and keeps tenants apart', async () => {
    const { tenantId, key } = await stack.newTenant();
    const flaky = await receiver({
      behaviour: (_, index) => (index % 2 === 0 ? { status: 500 } : { status: 200 }),
    });
    const endpoint = await stack.registerEndpoint(key, `${flaky.url}/in`);
    for (let i = 0; i < 3; i += 1) {
      await stack.publish(tenantId);
    }
    const all = await waitFor(
      async () => {
        const rows = await stack.api.dataSource.query(
          `SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`,
          [endpoint.id],
        );
        if (rows[0].n < 3) return null;
        return (
          await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpoint.id}/attempts?limit=100`, {
            key,
          })
        ).body.data;
      },
      { timeoutMs: 30_000, what: 'three succeeded deliveries' },
    );
    // Newest first in the order of recording: attempts made a few ms apart may be committed in
    // the other order (group commits run side by side), never further apart than a commit takes.
    const times = all.map((a: { attempted_at: string }) => Date.parse(a.attempted_at));
    times.slice(1).forEach((time: number, index: number) => {
      expect(time).toBeLessThanOrEqual(times[index] + 250);
    });

    const pages: unknown[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const page = await http(
        stack.api.baseUrl,
        'GET',
        `/v1/webhooks/${endpoint.id}/attempts${query}`,
        { key },
      );
      pages.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(pages).toEqual(all);
    // Three events, three deliveries numbered 1..3; every attempt of one carries its number.
    const numbersOf = new Map<string, Set<number>>();
    for (const attempt of all as { delivery_id: string; sequence: number }[]) {
      numbersOf.set(
        attempt.delivery_id,
        (numbersOf.get(attempt.delivery_id) ?? new Set()).add(attempt.sequence),
      );
    }
    expect([...numbersOf.values()].map((numbers) => [...numbers])).toEqual(
      expect.arrayContaining([[1], [2], [3]]),
    );
    expect(numbersOf.size).toBe(3);

    const failed = await http(
      stack.api.baseUrl,
      'GET',
      `/v1/webhooks/${endpoint.id}/attempts?outcome=failed`,
      { key },
    );
    expect(failed.body.data.length).toBeGreaterThan(0);
    expect(
      failed.body.data.every(
        (a: { outcome: string; status_code: number }) =>
          a.outcome === 'failed' && a.status_code === 500,
      ),
    ).toBe(true);
    const bad = await http(
      stack.api.baseUrl,
      'GET',
      `/v1/webhooks/${endpoint.id}/attempts?outcome=maybe`,
      { key },
    );
    expect(bad.status).toBe(400);

    const intruder = await stack.newTenant();
    expect(
      (
        await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpoint.id}/attempts`, {
          key: intruder.key,
        })
      ).status,
    ).toBe(404);
    const eventId = all[0].event_id;
    expect(
      (
        await http(stack.api.baseUrl, 'GET', `/v1/events/${eventId}/deliveries`, {
          key: intruder.key,
        })
      ).body.data,
    ).toEqual([]);
    const deliveries = (
      await http(stack.api.baseUrl, 'GET', `/v1/events/${eventId}/deliveries`, { key })
    ).body.data;
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].sequence).toBe(all[0].sequence);
  });

  it('rebuilds deliveries, attempts, schedule and endpoints from the log into exactly the live rows', async () => {
    const { tenantId, key } = await stack.newTenant();
    const healthy = await receiver();
    const failing = await receiver({ behaviour: { status: 500 } });
    const slow = await receiver({ behaviour: { delayMs: 300 } });
    const ok = await stack.registerEndpoint(key, `${healthy.url}/ok`);
    const broken = await stack.registerEndpoint(key, `${failing.url}/broken`);
    await stack.registerEndpoint(key, `${slow.url}/slow`);
    const doomed = await stack.registerEndpoint(key, `${failing.url}/doomed`, {
      events: ['incident.*'],
    });
    for (let i = 0; i < 4; i += 1) {
      await stack.publish(tenantId, 'alert.created');
    }
    await stack.publish(tenantId, 'incident.created');
    await waitFor(async () => {
      const rows = await stack.api.dataSource.query(
        `SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = $1 AND status = 'abandoned'`,
        [broken.id],
      );
      return rows[0].n === 4;
    });
    // A re-drive, and a deletion that cancels what is still pending for that endpoint.
    failing.respondWith({ status: 200 });
    await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${broken.id}/recover`, {
      key,
      json: { redrive_abandoned_since: '2000-01-01T00:00:00Z' },
    });
    await http(stack.api.baseUrl, 'DELETE', `/v1/webhooks/${doomed.id}`, { key });
    await waitFor(async () => {
      const rows = await stack.api.dataSource.query(
        `SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending' AND tenant_id = $1`,
        [tenantId],
      );
      return rows[0].n === 0;
    });
    expect(
      (await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${ok.id}/attempts`, { key })).body.data
        .length,
    ).toBe(5);

    const statuses = await stack.api.dataSource.query(
      `SELECT status, count(*)::int AS n FROM deliveries WHERE tenant_id = $1 GROUP BY status ORDER BY status`,
      [tenantId],
    );
    expect(statuses.map((s: { status: string }) => s.status)).toEqual(
      expect.arrayContaining(['succeeded']),
    );
    const deferred = await stack.api.dataSource.query(
      `SELECT count(*)::int AS n FROM events WHERE type = 'delivery.deferred'`,
    );
    expect(deferred[0].n).toBeGreaterThan(0);

    await stack.engine.close();
    const snapshot = async () => ({
      endpoints: await stack.api.dataSource.query('SELECT * FROM webhook_endpoints ORDER BY id'),
      deliveries: await stack.api.dataSource.query('SELECT * FROM deliveries ORDER BY id'),
      attempts: await stack.api.dataSource.query(
        'SELECT * FROM delivery_attempts ORDER BY position',
      ),
      schedule: await stack.api.dataSource.query(
        'SELECT delivery_id, tenant_id, endpoint_id, due_at FROM delivery_schedule ORDER BY delivery_id',
      ),
    });
    const live = await snapshot();
    expect(live.deliveries.length).toBeGreaterThan(10);
    const run = await runSvc(['projections', 'rebuild', '--json'], {
      env: { DATABASE_URL: stack.databaseUrl },
    });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      deliveries: live.deliveries.length,
      attempts: live.attempts.length,
    });
    expect(await snapshot()).toEqual(live);
    stack.engine = await stack.startEngine();
  });
});
