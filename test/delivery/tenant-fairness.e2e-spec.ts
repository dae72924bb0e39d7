import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { buildOnce, EngineProcess, spawnEngineProcess } from '../support/engine-process';
import { freePort } from '../support/free-port';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { metricValue } from '../support/metric-value';
import { waitFor } from '../support/wait-for';

/** Tenant A's burst: enough events that the engine is behind it for several seconds. */
const BURST_EVENTS = 3000;
/**
 * A publishes its burst at this rate: about three times what one engine delivers to A's
 * endpoints on this 2-core machine (300 to 400 events a second since issue 18, with the
 * publisher, NATS, PostgreSQL, the receivers and the engines sharing the cores), so the backlog
 * builds as it would at any rate, but not faster than an engine here passes over a laned tenant's
 * messages: that would measure the machine. At 300 a second, an engine on a quiet machine kept
 * up (A's median 19 ms) and there was no neighbour to be noisy. `npm run bench:noisy-neighbour`
 * publishes as fast as JetStream takes it.
 */
const BURST_EVENTS_PER_SECOND = 1000;
/** A's endpoints, each on a receiver of its own that answers at once. */
const BURST_ENDPOINTS = 3;
/** Tenant B publishes one event this often while A's burst is delivered. */
const TRICKLE_EVERY_MS = 200;
/**
 * How much sooner than A's own events B's must arrive. Before hot-tenant lanes every B event
 * waited behind the A events published before it, as long as they did (B's p99 was 1.3 to 2
 * times A's median: 42 s against 21 s with one engine). Issue 19 asks B's p99 to be at most
 * 250 ms, which the benchmark measures; on this shared machine the engines' event loops lag by
 * 20 to 100 ms at every step, so a bound in milliseconds would measure the machine. The ratio
 * measures fairness: B's slowest events wait a small part of what A's median event waits
 * (0.05 to 0.17 measured, quiet machine or loaded; the bound leaves twice that).
 */
const TRICKLE_P99_OVER_BURST_P50 = 1 / 3;

interface NoisyNeighbourRun {
  /** B's publish-to-receipt, one per event published during A's burst, in ms. */
  trickleLatenciesMs: number[];
  /** A's publish-to-receipt (at its first endpoint), one per event of the burst, in ms. */
  burstLatenciesMs: number[];
  burstEventIds: string[];
  trickleEventIds: string[];
  tenants: string[];
  /** B's three slowest events: latency and when published, from the start of A's burst (ms). */
  slowestTrickle: { latencyMs: number; publishedAtMs: number }[];
}

/** The nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

const eventIdOf = (request: { headers: Record<string, unknown> }) =>
  String(request.headers['x-svc-event-id']);

/**
 * Issue 19: tenant A publishes a burst to fast endpoints while tenant B publishes one event every
 * 200 ms to its own endpoint, with the engine as a process of its own, and with two. Before
 * hot-tenant lanes (ADR 0032) every B event waited for all the A events published before it;
 * now A's backlog goes to a lane of its own, the main intake passes over it, and B's events
 * arrive long before A's. Everything still arrives at every endpoint (a copy raced by two
 * intakes may arrive twice, ADR 0016), and every request sent is in the log.
 */
describe('fairness between tenants: one tenant bursting, another trickling', () => {
  async function noisyNeighbour(
    stack: DeliveryStack,
    burstReceivers: HttpsReceiver[],
    trickleReceiver: HttpsReceiver,
  ): Promise<NoisyNeighbourRun> {
    const burst = await stack.newTenant();
    const trickle = await stack.newTenant();
    for (const receiver of burstReceivers) {
      await stack.registerEndpoint(burst.key, `${receiver.url}/burst`, { events: ['alert.*'] });
    }
    await stack.registerEndpoint(trickle.key, `${trickleReceiver.url}/trickle`, {
      events: ['alert.*'],
    });
    // Distinct events per receiver: a copy raced by two intakes may arrive twice (ADR 0016).
    const eventsAt = (receiver: HttpsReceiver) => new Set(receiver.requests.map(eventIdOf)).size;
    const burstReceived = () =>
      burstReceivers.reduce((sum, receiver) => sum + eventsAt(receiver), 0);

    // A few events of each first, so that both tenants' endpoints are cached and their
    // connections open: what is measured is the burst, not a cold start.
    const burstEventIds: string[] = [];
    const warmUpTrickle: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      burstEventIds.push((await stack.publish(burst.tenantId)).id);
      warmUpTrickle.push((await stack.publish(trickle.tenantId)).id);
    }
    await waitFor(
      () =>
        Promise.resolve(
          burstReceived() >= 3 * burstReceivers.length && eventsAt(trickleReceiver) >= 3,
        ),
      { timeoutMs: 20_000, what: 'the warm-up events' },
    );

    // B's events, one every 200 ms until A's burst is delivered, each timed from the moment
    // its publish starts.
    const tricklePublishedAt = new Map<string, number>();
    let burstDelivered = false;
    const trickling = (async () => {
      while (!burstDelivered) {
        const next = Date.now() + TRICKLE_EVERY_MS;
        const startedAt = Date.now();
        const event = await stack.publish(trickle.tenantId);
        tricklePublishedAt.set(event.id, startedAt);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
      }
    })();

    // A's burst, at BURST_EVENTS_PER_SECOND, in chunks every 50 ms.
    const burstPublishedAt = new Map<string, number>();
    const chunk = BURST_EVENTS_PER_SECOND / 20;
    const burstStartedAt = Date.now();
    for (let sent = 0; sent < BURST_EVENTS; sent += chunk) {
      const startedAt = Date.now();
      const events = await Promise.all(
        Array.from({ length: Math.min(chunk, BURST_EVENTS - sent) }, () =>
          stack.publish(burst.tenantId),
        ),
      );
      for (const event of events) {
        burstEventIds.push(event.id);
        burstPublishedAt.set(event.id, startedAt);
      }
      const due = burstStartedAt + ((sent + chunk) / BURST_EVENTS_PER_SECOND) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    }
    await waitFor(
      () => Promise.resolve(burstReceived() >= burstEventIds.length * burstReceivers.length),
      {
        timeoutMs: 120_000,
        intervalMs: 100,
        what: `the ${burstEventIds.length * burstReceivers.length} deliveries of A's events`,
      },
    );
    burstDelivered = true;
    await trickling;
    const measured = [...tricklePublishedAt.keys()];
    const trickleEventIds = [...warmUpTrickle, ...measured];
    await waitFor(() => Promise.resolve(eventsAt(trickleReceiver) >= trickleEventIds.length), {
      timeoutMs: 30_000,
      what: `B's ${trickleEventIds.length} events`,
    });
    const firstReceipt = new Map<string, number>();
    for (const request of [
      ...trickleReceiver.requests,
      ...burstReceivers.flatMap((r) => r.requests),
    ]) {
      const id = eventIdOf(request);
      firstReceipt.set(id, Math.min(firstReceipt.get(id) ?? Infinity, request.receivedAt));
    }
    const slowestTrickle = measured
      .map((id) => ({
        latencyMs: firstReceipt.get(id)! - tricklePublishedAt.get(id)!,
        publishedAtMs: tricklePublishedAt.get(id)! - burstStartedAt,
      }))
      .sort((a, b) => b.latencyMs - a.latencyMs)
      .slice(0, 3);
    return {
      slowestTrickle,
      trickleLatenciesMs: measured.map((id) => firstReceipt.get(id)! - tricklePublishedAt.get(id)!),
      burstLatenciesMs: [...burstPublishedAt].map(([id, at]) => firstReceipt.get(id)! - at),
      burstEventIds,
      trickleEventIds,
      tenants: [burst.tenantId, trickle.tenantId],
    };
  }

  /** Every event reached every endpoint of its tenant, and every request sent is in the log. */
  async function expectEverythingDeliveredAndRecorded(
    stack: DeliveryStack,
    run: NoisyNeighbourRun,
    receivers: HttpsReceiver[],
  ): Promise<void> {
    for (const receiver of receivers.slice(0, BURST_ENDPOINTS)) {
      expect(new Set(receiver.requests.map(eventIdOf))).toEqual(new Set(run.burstEventIds));
    }
    const trickleReceiver = receivers[BURST_ENDPOINTS];
    expect(new Set(trickleReceiver.requests.map(eventIdOf))).toEqual(new Set(run.trickleEventIds));

    const expected = run.burstEventIds.length * BURST_ENDPOINTS + run.trickleEventIds.length;
    await waitFor(
      async () => {
        const [{ succeeded }] = await stack.api.dataSource.query(
          `SELECT count(*)::int AS succeeded FROM deliveries
            WHERE tenant_id = ANY($1) AND status = 'succeeded'`,
          [run.tenants],
        );
        return succeeded === expected;
      },
      { timeoutMs: 30_000, what: `${expected} deliveries recorded as succeeded` },
    );
    const requestsSent = receivers.reduce((sum, receiver) => sum + receiver.requests.length, 0);
    const [{ deliveries, attempts }] = await stack.api.dataSource.query(
      `SELECT (SELECT count(*)::int FROM deliveries WHERE tenant_id = ANY($1)) AS deliveries,
              (SELECT count(*)::int FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                WHERE d.tenant_id = ANY($1)) AS attempts`,
      [run.tenants],
    );
    expect(deliveries).toBe(expected);
    // No request without its attempt in the log, a raced copy included (ADR 0016); an attempt
    // that timed out before its request arrived whole is in the log and at no receiver.
    expect(attempts).toBeGreaterThanOrEqual(requestsSent);
  }

  describe.each([1, 2])('with %i engine process(es)', (engineCount) => {
    let stack: DeliveryStack;
    const engines: { process: EngineProcess; managementUrl: string }[] = [];
    let receivers: HttpsReceiver[] = [];

    beforeAll(async () => {
      buildOnce();
      stack = await startDeliveryStack({}, { inProcessEngine: false });
      for (let i = 0; i < engineCount; i += 1) {
        const port = await freePort();
        engines.push({
          process: await spawnEngineProcess(stack, { DELIVERY_PORT: String(port) }),
          managementUrl: `http://127.0.0.1:${port}`,
        });
      }
      receivers = await Promise.all(
        Array.from({ length: BURST_ENDPOINTS + 1 }, () => startHttpsReceiver()),
      );
    }, 200_000);
    afterAll(async () => {
      for (const engine of engines) {
        engine.process.child.kill('SIGTERM');
        await engine.process.exited;
      }
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await stack?.close();
    });

    it("delivers B's events long before A's backlog, every event to every endpoint, every request recorded", async () => {
      const run = await noisyNeighbour(
        stack,
        receivers.slice(0, BURST_ENDPOINTS),
        receivers[BURST_ENDPOINTS],
      );
      const trickle = {
        p50: percentile(run.trickleLatenciesMs, 50),
        p99: percentile(run.trickleLatenciesMs, 99),
      };
      const burstP50 = percentile(run.burstLatenciesMs, 50);
      const copies = receivers.reduce(
        (sum, receiver) =>
          sum + receiver.requests.length - new Set(receiver.requests.map(eventIdOf)).size,
        0,
      );
      console.log(
        `${engineCount} engine(s): B's ${run.trickleLatenciesMs.length} events p50 ${trickle.p50} ms, ` +
          `p99 ${trickle.p99} ms; A's ${run.burstLatenciesMs.length} events p50 ${burstP50} ms; ` +
          `${copies} requests were second copies; B's slowest (latency ms @ ms into A's burst): ` +
          run.slowestTrickle.map((s) => `${s.latencyMs} @ ${s.publishedAtMs}`).join(', '),
      );
      expect(run.trickleLatenciesMs.length).toBeGreaterThanOrEqual(20);
      expect(trickle.p99).toBeLessThanOrEqual(burstP50 * TRICKLE_P99_OVER_BURST_P50);
      await expectEverythingDeliveredAndRecorded(stack, run, receivers);

      // A's backlog went to a lane, which every engine served: one lane however many engines
      // decided at once. On a slow machine a lane may close once caught up and open again later
      // (A's, or B's once the main intake holds little else): never a second one while one is.
      const laneLog = engines.map((engine) => engine.process.output()).join('\n');
      const count = (text: string) => laneLog.split(text).length - 1;
      const [burstTenant, trickleTenant] = run.tenants;
      console.log(
        `${engineCount} engine(s): lanes opened for A ${count(`lane opened for ${burstTenant} `)}, ` +
          `for B ${count(`lane opened for ${trickleTenant} `)}; ` +
          `closed: A ${count(`lane of ${burstTenant} closed`)}, B ${count(`lane of ${trickleTenant} closed`)}`,
      );
      expect(count(`lane opened for ${burstTenant} `)).toBeGreaterThanOrEqual(1);
      for (const tenant of run.tenants) {
        expect(count(`lane opened for ${tenant} `)).toBeLessThanOrEqual(
          count(`lane of ${tenant} closed`) + 1,
        );
      }
      let opened = 0;
      for (const engine of engines) {
        opened += await metricValue(
          engine.managementUrl,
          'svc_delivery_intake_lane_changes_total',
          'change="opened"',
        );
        expect(
          await metricValue(
            engine.managementUrl,
            'svc_delivery_intake_wait_seconds_count',
            'intake="lane"',
          ),
        ).toBeGreaterThan(0);
      }
      expect(opened).toBe(count('lane opened for '));
    }, 200_000);
  });
});
