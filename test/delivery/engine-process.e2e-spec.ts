import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { buildOnce, spawnEngineProcess } from '../support/engine-process';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

const countDeliveries = async (stack: DeliveryStack, status: string): Promise<number> => {
  const [row] = await stack.api.dataSource.query(
    'SELECT count(*)::int AS n FROM deliveries WHERE status = $1',
    [status],
  );
  return row.n;
};

describe('the engine as its own process', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    buildOnce();
    // Messages a killed engine held come back to the consumer after the ack wait.
    stack = await startDeliveryStack(
      { DELIVERY_CONSUMER_ACK_WAIT: '4s' },
      { inProcessEngine: false },
    );
  }, 200_000);
  afterEach(async () => {
    await receiver?.close();
  });
  afterAll(() => stack.close());

  it('loses no event and no recorded attempt when killed with SIGKILL in the middle of a batch', async () => {
    receiver = await startHttpsReceiver({ behaviour: { delayMs: 30 } });
    const engine = await spawnEngineProcess(stack);
    const { tenantId, key } = await stack.newTenant();
    const endpoints = [];
    for (const path of ['a', 'b', 'c']) {
      endpoints.push(await stack.registerEndpoint(key, `${receiver.url}/${path}`));
    }
    const events = [];
    for (let i = 0; i < 100; i += 1) {
      events.push(await stack.publish(tenantId));
    }
    await receiver.waitForRequests(40, 20_000);
    engine.child.kill('SIGKILL');
    const [, signal] = await engine.exited;
    expect(signal).toBe('SIGKILL');
    const succeededAtKill = await countDeliveries(stack, 'succeeded');
    expect(succeededAtKill).toBeLessThan(300);

    await stack.startEngine();
    await waitFor(async () => (await countDeliveries(stack, 'succeeded')) === 300, {
      timeoutMs: 30_000,
      what: '300 successes',
    });

    const rows: { event_id: string; endpoint_id: string; attempts: number }[] =
      await stack.api.dataSource.query('SELECT event_id, endpoint_id, attempts FROM deliveries');
    expect(rows).toHaveLength(300);
    for (const event of events) {
      for (const endpoint of endpoints) {
        expect(
          rows.filter((row) => row.event_id === event.id && row.endpoint_id === endpoint.id),
        ).toHaveLength(1);
      }
    }
    const [orphans] = await stack.api.dataSource.query(
      `SELECT count(*)::int AS n FROM deliveries d
        WHERE NOT EXISTS (SELECT 1 FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.succeeded)`,
    );
    expect(orphans.n).toBe(0);
    const received = new Set(
      receiver.requests.map((r) => `${String(r.headers['x-svc-event-id'])} ${r.path}`),
    );
    expect(received.size).toBe(300);
  }, 90_000);

  it('finishes and records in-flight attempts on SIGTERM, hands back the rest, and exits 0', async () => {
    receiver = await startHttpsReceiver({ behaviour: { delayMs: 1500 } });
    const engine = await spawnEngineProcess(stack);
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/slow`);
    const before = await countDeliveries(stack, 'succeeded');
    const events = [];
    for (let i = 0; i < 5; i += 1) {
      events.push(await stack.publish(tenantId));
    }
    const inFlight = await receiver.waitForRequests(2, 10_000);
    const stoppedAt = Date.now();
    engine.child.kill('SIGTERM');
    const [code] = await engine.exited;
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(engine.output()).toMatch(/in-flight attempts finished and recorded/);

    // Every attempt that reached the receiver before the stop was recorded as a success.
    const recorded: { event_id: string }[] = await stack.api.dataSource.query(
      `SELECT event_id FROM deliveries WHERE status = 'succeeded' AND event_id = ANY($1::text[])`,
      [inFlight.map((r) => r.headers['x-svc-event-id'])],
    );
    expect(recorded.length).toBe(inFlight.length);

    await stack.startEngine();
    await waitFor(async () => (await countDeliveries(stack, 'succeeded')) === before + 5, {
      timeoutMs: 20_000,
      what: 'all five',
    });
    const perEvent = new Map<string, number>();
    receiver.requests.forEach((r) =>
      perEvent.set(
        r.headers['x-svc-event-id'] as string,
        (perEvent.get(r.headers['x-svc-event-id'] as string) ?? 0) + 1,
      ),
    );
    expect([...perEvent.keys()].sort()).toEqual(events.map((e) => e.id).sort());
    expect([...perEvent.values()].every((n) => n === 1)).toBe(true);
  }, 60_000);
});

/** A stack of its own: the other tests leave an in-process engine running, which would retry too. */
describe('the engine as its own process, stopping', () => {
  let stack: DeliveryStack;
  const receivers: HttpsReceiver[] = [];

  beforeAll(async () => {
    buildOnce();
    stack = await startDeliveryStack({}, { inProcessEngine: false });
  }, 200_000);
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await stack.close();
  });

  it('on SIGTERM starts no new attempt, from the intake or the retry schedule, while it waits for a hanging one', async () => {
    // /failing answers 503 at once, so its deliveries come back from the schedule every second;
    // /hanging answers after the attempt timeout, so the stop waits for it.
    const receiver = await startHttpsReceiver({
      behaviour: (request) =>
        request.path === '/failing' ? { status: 503 } : { status: 200, delayMs: 4_000 },
    });
    receivers.push(receiver);
    const engine = await spawnEngineProcess(stack, {
      DELIVERY_TIMEOUT: '3s',
      DELIVERY_RETRY_SCHEDULE: '1s',
      DELIVERY_MAX_ATTEMPTS: '20',
      DELIVERY_SCHEDULER_INTERVAL: '100ms',
    });
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/failing`, { events: ['incident.*'] });
    await stack.registerEndpoint(key, `${receiver.url}/hanging`, { events: ['alert.*'] });
    for (let i = 0; i < 5; i += 1) {
      await stack.publish(tenantId, 'incident.created');
    }
    const failing = () => receiver.requests.filter((r) => r.path === '/failing');
    // Retries are flowing: some deliveries are at their second attempt or later.
    await waitFor(
      () => Promise.resolve(failing().some((r) => r.headers['x-svc-delivery-attempt'] !== '1')),
      { timeoutMs: 15_000, what: 'retries of the failing endpoint' },
    );
    await stack.publish(tenantId, 'alert.created');
    await waitFor(() => Promise.resolve(receiver.requests.some((r) => r.path === '/hanging')), {
      timeoutMs: 10_000,
      what: 'an attempt to the hanging endpoint',
    });
    const stoppedAt = Date.now();
    engine.child.kill('SIGTERM');
    const [code] = await engine.exited;
    expect(code).toBe(0);
    // An attempt that had started when the signal came may arrive a moment later; nothing
    // started afterwards (before, the schedule kept sending while the intake waited).
    const msAfterSignal = failing()
      .map((r) => r.receivedAt - stoppedAt)
      .filter((ms) => ms > 1_000);
    expect(msAfterSignal).toEqual([]);
  }, 60_000);
});
