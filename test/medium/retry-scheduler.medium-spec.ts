import { Logger } from '@nestjs/common';
import { DeliveryRecord, InboundEvent } from '@svc/deliveries';
import { deliveryState } from '@svc/testing/builders';
import { Registry } from 'prom-client';
import { DeliveryMetrics } from '../../apps/delivery/src/delivery-metrics';
import type { DirectoryEndpoint } from '../../apps/delivery/src/fan-out/endpoint-directory';
import type { DeliverySchedule } from '../../apps/delivery/src/ports';
import { RetryScheduler } from '../../apps/delivery/src/retries/retry-scheduler';
import {
  endpoint,
  FakeDispatcher,
  FakeRecordingGate,
  FakeRecordStore,
  until,
} from './fakes/intake-fakes';

/**
 * The retry scheduler over fakes of its ports: what it does with each claimed delivery (dispatch,
 * forget, cancel, postpone) and when it claims, without PostgreSQL or HTTP.
 */

const BUSY_DELAY_MS = 1000;

interface Claimed {
  delivery: DeliveryRecord;
  payload: InboundEvent | undefined;
}

/** The work queue in memory: what is due is claimed once. */
class FakeSchedule implements DeliverySchedule {
  due: Claimed[] = [];
  claims = 0;
  readonly postponed: [string, number][] = [];
  readonly forgotten: string[] = [];

  /** The endpoints each claim was told to skip. */
  readonly skipped: (readonly string[])[] = [];

  claimDue(
    limit: number,
    _leaseMs: number,
    skipEndpoints: readonly string[] = [],
  ): Promise<Claimed[]> {
    this.claims += 1;
    this.skipped.push(skipEndpoints);
    const claimable = this.due.filter(
      ({ delivery }) => !skipEndpoints.includes(delivery.endpointId),
    );
    const claimed = claimable.slice(0, limit);
    this.due = this.due.filter((entry) => !claimed.includes(entry));
    return Promise.resolve(claimed);
  }

  /** Each FIFO endpoint's queue in number order; a head is taken while `headFree` says so. */
  readonly orderedQueues = new Map<string, Claimed[]>();
  headFree = true;

  claimOrderedHeads(limit: number, _leaseMs: number, endpointId?: string): Promise<Claimed[]> {
    if (!this.headFree) {
      return Promise.resolve([]);
    }
    const queues = endpointId
      ? [this.orderedQueues.get(endpointId) ?? []]
      : [...this.orderedQueues.values()];
    const heads = queues.flatMap((queue) => queue.splice(0, 1)).slice(0, limit);
    return Promise.resolve(heads);
  }

  postpone(deliveryId: string, delayMs: number): Promise<void> {
    this.postponed.push([deliveryId, delayMs]);
    return Promise.resolve();
  }

  forget(deliveryId: string): Promise<void> {
    this.forgotten.push(deliveryId);
    return Promise.resolve();
  }

  dueBacklog(): Promise<number> {
    return Promise.resolve(this.due.length);
  }

  orderedWaiting(): Promise<number> {
    return Promise.resolve([...this.orderedQueues.values()].flat().length);
  }
}

class FakeDirectory {
  readonly endpoints = new Map<string, DirectoryEndpoint>();

  endpoint(_tenantId: string, endpointId: string): Promise<DirectoryEndpoint | null> {
    return Promise.resolve(this.endpoints.get(endpointId) ?? null);
  }

  endpointForTest(tenantId: string, endpointId: string): Promise<DirectoryEndpoint | null> {
    return this.endpoint(tenantId, endpointId);
  }
}

function due(id: string, overrides: Partial<DeliveryRecord> = {}, payload = true): Claimed {
  const delivery = { ...deliveryState({ id, endpointId: 'wh_1' }), ...overrides };
  return {
    delivery,
    payload: payload
      ? { eventId: delivery.eventId, tenantId: delivery.tenantId, body: '{}', traceContext: null }
      : undefined,
  } as Claimed;
}

function schedulerWithFakes(intervalMs = 60_000) {
  const fakes = {
    queue: new FakeSchedule(),
    directory: new FakeDirectory(),
    dispatcher: new FakeDispatcher(),
    recorder: new FakeRecordStore(),
    health: new FakeRecordingGate(),
    metrics: new DeliveryMetrics(new Registry()),
    /** What the engine's ConcurrencyLimits would say: endpoints with no free slot. */
    full: [] as string[],
    fullEndpoints: (): readonly string[] => fakes.full.slice(),
  };
  fakes.directory.endpoints.set('wh_1', endpoint('wh_1', 'ten_1'));
  const scheduler = new RetryScheduler(fakes, {
    intervalMs,
    leaseMs: 15_000,
    batchSize: 100,
    busyEndpointDelayMs: BUSY_DELAY_MS,
    globalMax: 256,
    backlogSampleMs: 60_000,
  });
  return { ...fakes, scheduler };
}

let running: ReturnType<typeof schedulerWithFakes>[] = [];

function started(intervalMs = 5): ReturnType<typeof schedulerWithFakes> {
  const fakes = schedulerWithFakes(intervalMs);
  running.push(fakes);
  fakes.scheduler.start();
  return fakes;
}

beforeAll(() => Logger.overrideLogger(['warn']));
afterEach(async () => {
  await Promise.all(running.map(({ scheduler }) => scheduler.stop()));
  running = [];
});

describe('RetryScheduler over fakes', () => {
  it('serves a kicked FIFO queue one head at a time, in order, without waiting for the interval', async () => {
    const fakes = schedulerWithFakes(60_000);
    running.push(fakes);
    const queue = ['del_f1', 'del_f2', 'del_f3'].map((id, index) =>
      due(id, { ordered: true, sequence: index + 1 }),
    );
    fakes.queue.orderedQueues.set('wh_1', queue);
    fakes.dispatcher.hold = true;

    fakes.scheduler.kick('wh_1');
    fakes.scheduler.kick('wh_1');
    await until(() => fakes.dispatcher.orders.length === 1);
    // The next head is not claimed while this one is being sent.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fakes.dispatcher.orders).toHaveLength(1);
    fakes.dispatcher.releaseHeld();
    await until(() => fakes.dispatcher.orders.length === 2);
    fakes.dispatcher.releaseHeld();
    await until(() => fakes.dispatcher.orders.length === 3);
    fakes.dispatcher.releaseHeld();
    expect(fakes.dispatcher.orders.map((order) => order.identity.sequence)).toEqual([1, 2, 3]);
  });

  it('stops serving a queue whose head is not free, and takes it up at a round', async () => {
    const fakes = started(5);
    fakes.queue.headFree = false;
    fakes.queue.orderedQueues.set('wh_1', [due('del_g1', { ordered: true, sequence: 1 })]);
    fakes.scheduler.kick('wh_1');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fakes.dispatcher.orders).toHaveLength(0);
    fakes.queue.headFree = true;
    await until(() => fakes.dispatcher.orders.length === 1);
    expect(fakes.dispatcher.orders[0].identity.delivery_id).toBe('del_g1');
  });

  it('given a due pending delivery, when claimed, then it is dispatched to its endpoint as the delivery it continues', async () => {
    const fakes = started();
    fakes.queue.due.push(due('del_1'));

    await until(() => fakes.dispatcher.orders.length === 1);
    const [order] = fakes.dispatcher.orders;
    expect(order.identity.delivery_id).toBe('del_1');
    expect(order.before?.id).toBe('del_1');
    expect(order.endpoint.id).toBe('wh_1');
    expect(fakes.queue.postponed).toEqual([]);
  });

  it('given a delivery no longer pending, when claimed, then its schedule row is forgotten and nothing is sent', async () => {
    const fakes = started();
    fakes.queue.due.push(due('del_done', { status: 'succeeded' }));

    await until(() => fakes.queue.forgotten.length === 1);
    expect(fakes.queue.forgotten).toEqual(['del_done']);
    expect(fakes.dispatcher.orders).toEqual([]);
  });

  it('given a delivery whose endpoint is gone, when claimed, then it is cancelled in the log and nothing is sent', async () => {
    const fakes = started();
    fakes.queue.due.push(due('del_orphan', { endpointId: 'wh_gone' }));

    await until(() => fakes.recorder.commits.length === 1);
    expect(fakes.recorder.commits[0]).toMatchObject({
      deliveryId: 'del_orphan',
      event: { type: 'delivery.cancelled' },
    });
    expect(fakes.dispatcher.orders).toEqual([]);
  });

  it('given a busy endpoint, when the delivery is claimed, then it is postponed by the busy delay, no attempt used', async () => {
    const fakes = started();
    fakes.dispatcher.outcome = 'busy';
    fakes.queue.due.push(due('del_busy'));

    await until(() => fakes.queue.postponed.length === 1);
    expect(fakes.queue.postponed).toEqual([['del_busy', BUSY_DELAY_MS]]);
  });

  it('given an endpoint with no free slot in this engine, when the interval comes, then its deliveries are not claimed, and are once a slot frees', async () => {
    const fakes = started();
    fakes.directory.endpoints.set('wh_2', endpoint('wh_2', 'ten_1'));
    fakes.full.push('wh_1');
    fakes.queue.due.push(
      due('del_full_1'),
      due('del_full_2'),
      due('del_free', { endpointId: 'wh_2' }),
    );
    await until(() => fakes.dispatcher.orders.length === 1);
    expect(fakes.dispatcher.orders.map((order) => order.identity.delivery_id)).toEqual([
      'del_free',
    ]);
    await until(() => fakes.queue.claims >= 3);
    expect(fakes.queue.skipped.at(-1)).toEqual(['wh_1']);
    expect(fakes.queue.postponed).toEqual([]);
    expect(fakes.queue.due.map(({ delivery }) => delivery.id)).toEqual([
      'del_full_1',
      'del_full_2',
    ]);

    fakes.full.length = 0;
    await until(() => fakes.dispatcher.orders.length === 3);
    expect(fakes.queue.due).toEqual([]);
  });

  it('given an endpoint at its rate limit, when the delivery is claimed, then it is postponed to the second that can take it, and counted', async () => {
    const fakes = started();
    fakes.dispatcher.outcome = 'rate-limited';
    fakes.queue.due.push(due('del_limited'));

    await until(() => fakes.queue.postponed.length === 1);
    expect(fakes.queue.postponed).toEqual([['del_limited', 700]]);
    expect((await fakes.metrics.deliveriesRateLimited.get()).values[0].value).toBe(1);
  });

  it('given records cannot be written, when the interval comes, then nothing is claimed until they can', async () => {
    const fakes = schedulerWithFakes(5);
    fakes.health.healthy = false;
    running.push(fakes);
    fakes.scheduler.start();
    fakes.queue.due.push(due('del_1'));

    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fakes.queue.claims).toBe(0);
    fakes.health.healthy = true;
    await until(() => fakes.dispatcher.orders.length === 1);
  });

  it('given a long interval, when the API announces deliveries due now, then a wake claims them at once', async () => {
    const fakes = started(60_000);
    await until(() => fakes.queue.claims === 1);
    fakes.queue.due.push(due('del_now'));

    fakes.scheduler.wake();
    await until(() => fakes.dispatcher.orders.length === 1, 500);
    expect(fakes.queue.claims).toBe(2);
  });
});
