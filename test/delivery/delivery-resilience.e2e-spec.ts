import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { SubjectScheme } from '@svc/contracts';
import { newEventEnvelope } from '@svc/event-publisher';
import { http } from '../support';
import { metricValue } from '../support/metric-value';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the delivery engine under poison, change, slowness, replicas and restarts', () => {
  let stack: DeliveryStack;
  const receivers: HttpsReceiver[] = [];
  const receiver = async (...args: Parameters<typeof startHttpsReceiver>) => {
    const started = await startHttpsReceiver(...args);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    stack = await startDeliveryStack({
      DELIVERY_RETRY_SCHEDULE: '300ms',
      DELIVERY_TIMEOUT: '10s',
      DELIVERY_MAX_CONCURRENCY_PER_ENDPOINT: '4',
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack.close();
  });

  it('parks poison messages on the dead-letter subject, counts and records them, and keeps consuming', async () => {
    const { tenantId, key } = await stack.newTenant();
    const target = await receiver();
    await stack.registerEndpoint(key, `${target.url}/in`);
    const js = jetstream(stack.nats);
    const subjects = new SubjectScheme(stack.settings.subjectRoot);
    const valid = newEventEnvelope(tenantId, 'alert.created', { n: 1 });
    const poison: [string, string | Uint8Array][] = [
      [subjects.event(tenantId, 'alert.created'), '{"id": "evt_broken", '],
      [
        subjects.event(tenantId, 'alert.created'),
        JSON.stringify({ ...valid, id: 'not-an-event-id' }),
      ],
      [
        subjects.event(tenantId, 'incident.created'),
        JSON.stringify({ ...valid, id: 'evt_mismatch1' }),
      ],
      [
        subjects.event('ten_someoneelse', 'alert.created'),
        JSON.stringify({ ...valid, id: 'evt_mismatch2' }),
      ],
    ];
    for (const [subject, body] of poison) {
      await js.publish(subject, body);
    }
    await stack.publisher.publish(valid);

    const [delivered] = await target.waitForRequests(1);
    expect(delivered.headers['x-svc-event-id']).toBe(valid.id);

    const jsm = await jetstreamManager(stack.nats);
    const parked = await waitFor(async () => {
      const info = await jsm.streams.info(stack.settings.deadLetterStream);
      return info.state.messages >= 4 ? info : null;
    });
    expect(parked.state.messages).toBe(4);
    const reasons: string[] = [];
    for (let seq = 1; seq <= 4; seq += 1) {
      const message = await jsm.streams.getMessage(stack.settings.deadLetterStream, { seq });
      reasons.push(message!.header.get('Svc-Rejection-Reason'));
      expect(message!.header.get('Svc-Original-Subject')).toMatch(
        new RegExp(`^${stack.settings.subjectRoot}\\.events\\.`),
      );
    }
    expect(reasons.sort()).toEqual([
      'invalid-envelope',
      'invalid-json',
      'subject-mismatch',
      'subject-mismatch',
    ]);
    // Parking republishes first, then records, counts and acknowledges: wait for each.
    const recorded = await waitFor(async () => {
      const rows = await stack.api.dataSource.query(
        `SELECT data->>'reason' AS reason FROM events WHERE type = 'event.rejected'`,
      );
      return rows.length === 4 ? rows : null;
    });
    expect(recorded).toHaveLength(4);
    await waitFor(
      async () =>
        (await metricValue(
          stack.engine.managementUrl,
          'svc_delivery_events_rejected_total',
          'reason="subject-mismatch"',
        )) === 2,
    );
    await waitFor(
      async () =>
        (await jsm.consumers.info(stack.settings.eventsStream, stack.settings.consumer))
          .num_ack_pending === 0,
    );
  });

  it('stops delivering to a deleted endpoint, and moves to a changed URL, within a second on every replica', async () => {
    const second = await stack.startEngine();
    const { tenantId, key } = await stack.newTenant();
    const before = await receiver();
    const after = await receiver();
    const kept = await receiver();
    const moving = await stack.registerEndpoint(key, `${before.url}/in`);
    const deleted = await stack.registerEndpoint(key, `${kept.url}/gone`);
    // Warm every replica's cache with both endpoints.
    for (let i = 0; i < 6; i += 1) {
      await stack.publish(tenantId);
    }
    await before.waitForRequests(6);
    await kept.waitForRequests(6);

    expect(
      (
        await http(stack.api.baseUrl, 'PATCH', `/v1/webhooks/${moving.id}`, {
          key,
          json: { url: `${after.url}/in` },
        })
      ).status,
    ).toBe(200);
    expect(
      (await http(stack.api.baseUrl, 'DELETE', `/v1/webhooks/${deleted.id}`, { key })).status,
    ).toBe(204);
    const changedAt = Date.now();
    await sleep(1000 - (Date.now() - changedAt));
    for (let i = 0; i < 6; i += 1) {
      await stack.publish(tenantId);
    }
    await after.waitForRequests(6);
    await sleep(500);
    expect(before.requests).toHaveLength(6);
    expect(kept.requests).toHaveLength(6);
    await second.close();
  });

  it('keeps a healthy endpoint fast while another takes 10 s to answer', async () => {
    const { tenantId, key } = await stack.newTenant();
    const slow = await receiver({ behaviour: { delayMs: 9_500 } });
    const healthy = await receiver();
    await stack.registerEndpoint(key, `${slow.url}/in`);
    await stack.registerEndpoint(key, `${healthy.url}/in`);
    const started = Date.now();
    for (let i = 0; i < 20; i += 1) {
      await stack.publish(tenantId);
    }
    const received = await healthy.waitForRequests(20, 5000);
    const slowest = Math.max(...received.map((request) => request.receivedAt - started));
    expect(slowest).toBeLessThan(3000);
    // The slow endpoint holds at most its own four slots; its other deliveries wait in the schedule.
    expect(slow.requests.length).toBeLessThanOrEqual(4);
  }, 30_000);
});

describe('replicas and restarts', () => {
  let stack: DeliveryStack;
  let target: HttpsReceiver;

  beforeAll(async () => {
    stack = await startDeliveryStack({
      DELIVERY_RETRY_SCHEDULE: '2s',
      DELIVERY_MAX_CONCURRENCY: '8',
    });
    target = await startHttpsReceiver({ behaviour: { delayMs: 20 } });
  });
  afterAll(async () => {
    await target.close();
    await stack.close();
  });

  it('shares the work between two engines and never delivers an event twice after its success', async () => {
    const second = await stack.startEngine();
    const { tenantId, key } = await stack.newTenant();
    const endpoint = await stack.registerEndpoint(key, `${target.url}/shared`);
    const events = [];
    for (let i = 0; i < 60; i += 1) {
      events.push(await stack.publish(tenantId));
    }
    await waitFor(async () => {
      const [row] = await stack.api.dataSource.query(
        `SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`,
        [endpoint.id],
      );
      return row.n === 60;
    });
    await sleep(500);
    const perEvent = new Map<string, number>();
    for (const request of target.requests.filter((r) => r.path === '/shared')) {
      const id = request.headers['x-svc-event-id'] as string;
      perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    }
    expect(perEvent.size).toBe(60);
    expect([...perEvent.values()].every((count) => count === 1)).toBe(true);
    const firstShare = await metricValue(
      stack.engine.managementUrl,
      'svc_delivery_attempts_total',
      'outcome="succeeded"',
    );
    const secondShare = await metricValue(
      second.managementUrl,
      'svc_delivery_attempts_total',
      'outcome="succeeded"',
    );
    expect(firstShare + secondShare).toBe(60);
    expect(firstShare).toBeGreaterThan(0);
    expect(secondShare).toBeGreaterThan(0);
    await second.close();
  });

  it('makes a retry that fell due while every engine was down', async () => {
    const { tenantId, key } = await stack.newTenant();
    const flaky = await startHttpsReceiver({
      behaviour: (_, index) => (index === 0 ? { status: 500 } : { status: 200 }),
    });
    try {
      const endpoint = await stack.registerEndpoint(key, `${flaky.url}/in`);
      const event = await stack.publish(tenantId);
      await flaky.waitForRequests(1);
      await waitFor(async () => {
        const [row] = await stack.api.dataSource.query(
          'SELECT attempts FROM deliveries WHERE event_id = $1',
          [event.id],
        );
        return row?.attempts === 1;
      });
      await stack.engine.close();
      await sleep(2500);
      expect(flaky.requests).toHaveLength(1);
      const restarted = await stack.startEngine();
      stack.engine = restarted;
      const [, retry] = await flaky.waitForRequests(2, 10_000);
      expect(retry.headers['x-svc-delivery-attempt']).toBe('2');
      await waitFor(async () => {
        const response = await http(
          stack.api.baseUrl,
          'GET',
          `/v1/webhooks/${endpoint.id}/attempts`,
          { key },
        );
        return response.body.data[0]?.outcome === 'succeeded' ? response.body.data : null;
      });
    } finally {
      await flaky.close();
    }
  });
});
