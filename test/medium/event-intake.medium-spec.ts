import { compileFilter, type CompiledFilter } from '@svc/webhook-endpoints';
import { Registry } from 'prom-client';
import { DeliveryMetrics } from '../../apps/delivery/src/delivery-metrics';
import { EventIntake, IntakeOptions } from '../../apps/delivery/src/intake/event-intake';
import { EventsInHand } from '../../apps/delivery/src/intake/events-in-hand';
import { EventHandler } from '../../apps/delivery/src/intake/handling/event-handler';
import {
  IntakePolicy,
  mainIntakePolicy,
  operationalIntakePolicy,
} from '../../apps/delivery/src/intake/intake-policy';
import { LaneView } from '../../apps/delivery/src/intake/lanes/lane-view';
import { MessageReplies } from '../../apps/delivery/src/intake/message-replies';
import { TenantsTaken } from '../../apps/delivery/src/intake/tenants-taken';
import {
  endpoint,
  eventMessage,
  FakeClock,
  FakeDeadLetters,
  FakeDispatcher,
  FakeLedger,
  FakeMessage,
  FakeMessageSource,
  FakeRecordingGate,
  FakeRecordStore,
  FakeSubscribers,
  SUBJECTS,
  until,
} from './fakes/intake-fakes';

/**
 * The intake with every port faked (test/medium/fakes): what becomes of each message (ack, park,
 * retry, skip, put back, release) and what is asked of the engine, without NATS or PostgreSQL.
 */

const OPTIONS: IntakeOptions = {
  maxMessagesInFlight: 8,
  maxDeliveriesInFlight: 64,
  maxFanningOut: 8,
  maxFanningOutPerTenant: 4,
  runAheadAloneForMs: 60_000,
  tenantWindow: 64,
  maxSlotWaitsPerTenant: 8,
  yieldPollMs: 5,
  ackWaitMs: 60_000,
  pullBatch: 32,
  skipPullBatch: 1000,
  pullExpiresMs: 50,
  retryFailedPullMs: 10,
};
const RETRY_FAILED_MESSAGE_MS = 5000;
const BUSY_DELAY_MS = 250;
const MAX_FAILED_HANDLINGS = 3;

function engineWithFakes(
  policy: IntakePolicy = operationalIntakePolicy(),
  options: Partial<IntakeOptions> = {},
) {
  const fakes = {
    source: new FakeMessageSource(),
    ledger: new FakeLedger(),
    subscribers: new FakeSubscribers(),
    dispatcher: new FakeDispatcher(),
    records: new FakeRecordStore(),
    deadLetters: new FakeDeadLetters(),
    recording: new FakeRecordingGate(),
    clock: new FakeClock(),
    /** The FIFO endpoints whose queues the intake told of a delivery due. */
    orderedQueues: {
      kicked: [] as string[],
      kick: (id: string) => fakes.orderedQueues.kicked.push(id),
    },
  };
  const metrics = new DeliveryMetrics(new Registry());
  const handler = new EventHandler(
    {
      subjects: SUBJECTS,
      ledger: fakes.ledger,
      subscribers: fakes.subscribers,
      dispatcher: fakes.dispatcher,
      records: fakes.records,
      recording: fakes.recording,
      eventsInHand: new EventsInHand(),
      orderedQueues: fakes.orderedQueues,
      metrics,
      clock: fakes.clock,
    },
    {
      retention: { retentionMs: 30 * 86_400_000, partitionWidthMs: 86_400_000 },
      busyEndpointDelayMs: BUSY_DELAY_MS,
    },
    policy.source,
    'main',
  );
  const replies = new MessageReplies(
    { deadLetters: fakes.deadLetters, recording: fakes.recording, metrics },
    { retryFailedMessageMs: RETRY_FAILED_MESSAGE_MS, maxFailedHandlings: MAX_FAILED_HANDLINGS },
  );
  const intake = new EventIntake(
    {
      source: fakes.source,
      handler,
      replies,
      subjects: SUBJECTS,
      metrics,
      clock: fakes.clock,
      engineTenants: new TenantsTaken(() => fakes.clock.now()),
    },
    { ...OPTIONS, ...options },
    policy,
  );
  return { ...fakes, intake, metrics };
}

/** The platform's events on the ops subjects are not the operational intake's: a main intake. */
function platformPolicy(): IntakePolicy {
  return mainIntakePolicy(
    new LaneView(
      {
        maxViewAgeMs: 5000,
        mainPutBackMs: 100,
        putBackMs: 100,
        maxConcurrency: 64,
        hotTenantShare: 0.5,
      },
      new FakeClock(),
    ),
  );
}

const SEVERE = { data: { severity: { $in: ['high', 'critical'] } } };

function compiled(filter: unknown): CompiledFilter {
  const compilation = compileFilter(filter);
  if (!compilation.ok) {
    throw new Error(JSON.stringify(compilation.problems));
  }
  return compilation.filter;
}

async function filteredCount(engine: { metrics: DeliveryMetrics }): Promise<number> {
  const { values } = await engine.metrics.deliveriesFiltered.get();
  return values.find((sample) => sample.labels.reason === 'filter')?.value ?? 0;
}

describe('the intake, its ports faked', () => {
  let running: ReturnType<typeof engineWithFakes> | undefined;
  afterEach(async () => {
    running?.dispatcher.releaseHeld();
    running?.ledger.releaseClaims();
    await running?.intake.stop();
    running = undefined;
  });

  function start(policy: IntakePolicy = platformPolicy(), options: Partial<IntakeOptions> = {}) {
    running = engineWithFakes(policy, options);
    void running.intake.start();
    return running;
  }

  it('fans a valid event out to every subscribed endpoint, then acknowledges it once', async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [
      endpoint('wh_1', 'ten_a'),
      endpoint('wh_2', 'ten_a'),
    ]);
    const message = eventMessage('ten_a', 1);
    engine.source.push(message);

    await until(() => message.replies.length > 0);
    expect(message.replies).toEqual(['ack']);
    expect(engine.dispatcher.orders.map((order) => order.endpoint.id).sort()).toEqual([
      'wh_1',
      'wh_2',
    ]);
    expect(engine.dispatcher.orders[0].identity).toMatchObject({
      tenant_id: 'ten_a',
      event_type: 'alert.created',
    });
  });

  it('parks a message that is not JSON with its reason, and acknowledges it only after the park', async () => {
    const engine = start();
    const message = new FakeMessage(SUBJECTS.event('ten_a', 'alert.created'), '{"id": ', 7);
    engine.source.push(message);

    await until(() => message.replies.length > 0);
    expect(engine.deadLetters.parked).toEqual([
      expect.objectContaining({ seq: 7, reason: 'invalid-json' }),
    ]);
    expect(message.replies).toEqual(['ack']);
    expect(engine.dispatcher.orders).toHaveLength(0);
  });

  it('parks a conflicting duplicate and never acknowledges it unparked, redelivered or not', async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    const first = eventMessage('ten_a', 1, { id: 'evt_same' });
    const again = eventMessage('ten_a', 2, { id: 'evt_same', data: { other: true } });
    engine.ledger.bodies.set('ten_a evt_same', Buffer.from(first.data).toString());

    engine.source.push(again);
    await until(() => again.replies.length > 0);
    expect(engine.deadLetters.parked).toEqual([
      expect.objectContaining({ seq: 2, reason: 'conflicting-duplicate' }),
    ]);
    expect(again.replies).toEqual(['ack']);
    expect(engine.dispatcher.orders).toHaveLength(0);
  });

  it('sends a conflicting duplicate back when its park fails, to come again later', async () => {
    const engine = start();
    const first = eventMessage('ten_a', 1, { id: 'evt_same' });
    engine.ledger.bodies.set('ten_a evt_same', Buffer.from(first.data).toString());
    engine.deadLetters.failure = new Error('the dead-letter stream is away');
    const again = eventMessage('ten_a', 2, { id: 'evt_same', data: { other: true } });

    engine.source.push(again);
    await until(() => again.replies.length > 0);
    expect(again.replies).toEqual([`nak ${RETRY_FAILED_MESSAGE_MS}`]);
  });

  it('acknowledges a republished event without sending anything again', async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    const message = eventMessage('ten_a', 3, { id: 'evt_again' });
    engine.ledger.bodies.set('ten_a evt_again', Buffer.from(message.data).toString());

    engine.source.push(message);
    await until(() => message.replies.length > 0);
    expect(message.replies).toEqual(['ack']);
    expect(engine.dispatcher.orders).toHaveLength(0);
  });

  it('resumes a redelivered message: only the endpoints still without a delivery get one', async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [
      endpoint('wh_1', 'ten_a'),
      endpoint('wh_2', 'ten_a'),
    ]);
    const message = eventMessage('ten_a', 4, { id: 'evt_half', redelivered: true });
    engine.ledger.bodies.set('ten_a evt_half', Buffer.from(message.data).toString());
    engine.ledger.served.set('ten_a evt_half', new Set(['wh_1']));

    engine.source.push(message);
    await until(() => message.replies.length > 0);
    expect(message.replies).toEqual(['ack']);
    expect(engine.dispatcher.orders.map((order) => order.endpoint.id)).toEqual(['wh_2']);
  });

  it("numbers each endpoint's deliveries before their first attempt, 1, 2… per endpoint", async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [
      endpoint('wh_1', 'ten_a'),
      endpoint('wh_2', 'ten_a'),
    ]);
    engine.ledger.counters.set('wh_2', 41);
    const first = eventMessage('ten_a', 11);
    const second = eventMessage('ten_a', 12);

    engine.source.push(first, second);
    await until(() => second.replies.length > 0 && first.replies.length > 0);
    const numbered = engine.dispatcher.orders.map(
      (order) =>
        `${order.identity.event_id.slice(-2)} ${order.endpoint.id} ${order.identity.sequence}`,
    );
    expect(numbered.sort()).toEqual(['11 wh_1 1', '11 wh_2 42', '12 wh_1 2', '12 wh_2 43']);
  });

  it("takes a tenant's next message once the last one's numbering is asked for, and numbers them in order (ADR 0050)", async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    engine.ledger.holdClaims = true;
    const messages = [21, 22, 23].map((seq) => eventMessage('ten_a', seq));
    engine.source.push(...messages);

    // All three ask while the first one's claim is still under way.
    await until(() => engine.ledger.asked.length === 3);
    expect(engine.dispatcher.orders).toHaveLength(0);
    engine.ledger.releaseClaims();
    await until(() => messages.every((message) => message.replies.length > 0));
    expect(
      engine.dispatcher.orders
        .map((order) => `${order.identity.event_id.slice(-2)} ${order.identity.sequence}`)
        .sort(),
    ).toEqual(['21 1', '22 2', '23 3']);
    expect(messages.map((message) => message.replies)).toEqual([['ack'], ['ack'], ['ack']]);
  });

  it("takes a tenant's messages one at a time while another tenant's was taken lately, and lets them run ahead again once it has been alone for runAheadAloneForMs (ADR 0050)", async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    engine.subscribers.byTenant.set('ten_b', [endpoint('wh_2', 'ten_b')]);
    const other = eventMessage('ten_b', 50);
    engine.source.push(other);
    await until(() => other.replies.length > 0);

    engine.ledger.holdClaims = true;
    const crowded = [51, 52].map((seq) => eventMessage('ten_a', seq));
    engine.source.push(...crowded);
    await until(() => engine.ledger.asked.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // B's message was taken a moment ago: A's second waits for its first to be numbered.
    expect(engine.ledger.asked).toHaveLength(2);
    engine.ledger.releaseClaims();
    await until(() => crowded.every((message) => message.replies.length > 0));
    expect(engine.ledger.asked).toHaveLength(3);

    engine.clock.advance(OPTIONS.runAheadAloneForMs + 1);
    engine.ledger.holdClaims = true;
    const alone = [53, 54, 55].map((seq) => eventMessage('ten_a', seq));
    engine.source.push(...alone);
    // Alone for long enough: all three ask while the first one's claim is still under way.
    await until(() => engine.ledger.asked.length === 6);
    engine.ledger.releaseClaims();
    await until(() => alone.every((message) => message.replies.length > 0));
    expect(
      engine.dispatcher.orders
        .filter((order) => order.identity.tenant_id === 'ten_a')
        .map((order) => `${order.identity.event_id.slice(-2)} ${order.identity.sequence}`)
        .sort(),
    ).toEqual(['51 1', '52 2', '53 3', '54 4', '55 5']);
  });

  it("lets no tenant's waiting claims take every fan-out: another tenant's message still comes in (ADR 0050)", async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    engine.subscribers.byTenant.set('ten_b', [endpoint('wh_2', 'ten_b')]);
    engine.ledger.holdClaims = true;
    const burst = [41, 42, 43, 44, 45, 46].map((seq) => eventMessage('ten_a', seq));
    const other = eventMessage('ten_b', 47);
    engine.source.push(...burst, other);

    // Four of A's (OPTIONS.maxFanningOutPerTenant) and B's ask while the claims are held.
    await until(() => engine.ledger.asked.includes(`evt_${String(47).padStart(26, '0')}`));
    expect(engine.ledger.asked).toHaveLength(5);
    engine.ledger.releaseClaims();
    await until(() => [...burst, other].every((message) => message.replies.length > 0));
    expect(engine.ledger.asked).toHaveLength(7);
  });

  it("holds a tenant's next message while a redelivered one is numbered: it may resume under numbers of its own", async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    engine.ledger.holdClaims = true;
    const redelivered = eventMessage('ten_a', 31, { redelivered: true });
    const next = eventMessage('ten_a', 32);
    engine.source.push(redelivered, next);

    await until(() => engine.ledger.asked.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(engine.ledger.asked).toHaveLength(1);
    engine.ledger.releaseClaims();
    await until(() => next.replies.length > 0 && redelivered.replies.length > 0);
    expect(engine.ledger.asked).toHaveLength(2);
  });

  it('skips an endpoint whose filter refuses the event: no delivery, no number, counted once (ADR 0046)', async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [
      { ...endpoint('wh_severe', 'ten_a'), filter: compiled(SEVERE) },
      endpoint('wh_all', 'ten_a'),
    ]);
    const messages = ['high', 'low', 'critical'].map((severity, index) =>
      eventMessage('ten_a', 21 + index, { data: { alert_id: `a${index}`, severity } }),
    );
    for (const message of messages) {
      engine.source.push(message);
      await until(() => message.replies.length > 0);
    }
    const numbered = engine.dispatcher.orders.map(
      (order) =>
        `${order.identity.event_id.slice(-2)} ${order.endpoint.id} ${order.identity.sequence}`,
    );
    expect(numbered.sort()).toEqual([
      '21 wh_all 1',
      '21 wh_severe 1',
      '22 wh_all 2',
      '23 wh_all 3',
      '23 wh_severe 2',
    ]);
    const lowKey = `ten_a ${JSON.parse(Buffer.from(messages[1].data).toString()).id}`;
    expect([...engine.ledger.numbers.get(lowKey)!.keys()]).toEqual(['wh_all']);
    expect(await filteredCount(engine)).toBe(1);

    // A republished copy of the refused event is a duplicate: not counted again.
    const again = new FakeMessage(
      messages[1].subject,
      Buffer.from(messages[1].data).toString(),
      24,
    );
    engine.source.push(again);
    await until(() => again.replies.length > 0);
    expect(again.replies).toEqual(['ack']);
    expect(await filteredCount(engine)).toBe(1);
  });

  it('resumes a redelivered message under the numbers it claimed, for an endpoint unsubscribed since too', async () => {
    const engine = start();
    const [kept, left] = [endpoint('wh_1', 'ten_a'), endpoint('wh_2', 'ten_a')];
    engine.subscribers.byTenant.set('ten_a', [kept, left]);
    const message = eventMessage('ten_a', 13, { id: 'evt_cut' });
    engine.dispatcher.failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    engine.source.push(message);
    await until(() => message.replies.length > 0);
    expect(message.replies).toEqual([`nak ${RETRY_FAILED_MESSAGE_MS}`]);

    // Stopped after numbering, before any delivery was recorded; `wh_2` unsubscribed since.
    engine.dispatcher.failure = undefined;
    engine.dispatcher.orders.length = 0;
    engine.subscribers.byTenant.set('ten_a', [kept]);
    engine.subscribers.unsubscribed.set('ten_a', [left]);
    const again = new FakeMessage(message.subject, Buffer.from(message.data).toString(), 13, {
      redelivered: true,
    });
    engine.source.push(again);
    await until(() => again.replies.length > 0);
    expect(again.replies).toEqual(['ack']);
    expect(
      engine.dispatcher.orders.map((order) => `${order.endpoint.id} ${order.identity.sequence}`),
    ).toEqual(['wh_1 1', 'wh_2 1']);
  });

  it('resumes a redelivered message under its number for an endpoint whose filter refuses it since', async () => {
    const engine = start();
    const severe = endpoint('wh_severe', 'ten_a');
    engine.subscribers.byTenant.set('ten_a', [severe]);
    const message = eventMessage('ten_a', 31, { id: 'evt_refiltered' });
    engine.dispatcher.failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    engine.source.push(message);
    await until(() => message.replies.length > 0);

    // Numbered before it stopped; its filter was changed to refuse the event since.
    engine.dispatcher.failure = undefined;
    engine.dispatcher.orders.length = 0;
    engine.subscribers.byTenant.set('ten_a', [
      { ...severe, filter: compiled({ data: { severity: 'critical' } }) },
    ]);
    const again = new FakeMessage(message.subject, Buffer.from(message.data).toString(), 31, {
      redelivered: true,
    });
    engine.source.push(again);
    await until(() => again.replies.length > 0);
    expect(again.replies).toEqual(['ack']);
    expect(
      engine.dispatcher.orders.map((order) => `${order.endpoint.id} ${order.identity.sequence}`),
    ).toEqual(['wh_severe 1']);
  });

  it("queues a FIFO endpoint's delivery for its turn (deferred, ordered) instead of sending it, and tells the queue", async () => {
    const engine = start();
    const fifo = { ...endpoint('wh_fifo', 'ten_a'), ordering: 'fifo' as const };
    engine.subscribers.byTenant.set('ten_a', [fifo, endpoint('wh_any', 'ten_a')]);
    const message = eventMessage('ten_a', 14);

    engine.source.push(message);
    await until(() => message.replies.length > 0);
    expect(message.replies).toEqual(['ack']);
    expect(engine.dispatcher.orders.map((order) => order.endpoint.id)).toEqual(['wh_any']);
    expect(engine.records.commits.map((commit) => commit.event)).toEqual([
      expect.objectContaining({
        type: 'delivery.deferred',
        data: expect.objectContaining({ endpoint_id: 'wh_fifo', sequence: 1, reason: 'ordered' }),
      }),
    ]);
    expect(engine.orderedQueues.kicked).toEqual(['wh_fifo']);
    expect(
      engine.ledger.queued.get(`ten_a ${JSON.parse(Buffer.from(message.data).toString()).id}`),
    ).toEqual(new Set(['wh_fifo']));
  });

  it('keeps a resumed delivery ordered when it took its queue place before the endpoint became unordered', async () => {
    const engine = start();
    const fifo = { ...endpoint('wh_fifo', 'ten_a'), ordering: 'fifo' as const };
    engine.subscribers.byTenant.set('ten_a', [fifo]);
    engine.records.failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const message = eventMessage('ten_a', 15);
    engine.source.push(message);
    await until(() => message.replies.length > 0);

    engine.records.failure = undefined;
    engine.subscribers.byTenant.set('ten_a', [{ ...fifo, ordering: 'unordered' }]);
    const again = new FakeMessage(message.subject, Buffer.from(message.data).toString(), 15, {
      redelivered: true,
    });
    engine.source.push(again);
    await until(() => again.replies.length > 0);
    expect(again.replies).toEqual(['ack']);
    expect(engine.dispatcher.orders).toHaveLength(0);
    expect(engine.records.commits.at(-1)?.event).toMatchObject({
      type: 'delivery.deferred',
      data: { reason: 'ordered', sequence: 1 },
    });
  });

  it('records a first attempt deferred when its endpoint is busy, and acknowledges the message', async () => {
    const engine = start();
    engine.dispatcher.outcome = 'busy';
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    const message = eventMessage('ten_a', 5);

    engine.source.push(message);
    await until(() => message.replies.length > 0);
    expect(message.replies).toEqual(['ack']);
    expect(engine.records.commits).toHaveLength(1);
    expect(engine.records.commits[0].event.type).toBe('delivery.deferred');
  });

  it('sends a message back with the retry delay when the database fails, and says so to the gate', async () => {
    const engine = start();
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    engine.ledger.failure = outage;
    const message = eventMessage('ten_a', 6);

    engine.source.push(message);
    await until(() => message.replies.length > 0);
    expect(message.replies).toEqual([`nak ${RETRY_FAILED_MESSAGE_MS}`]);
    expect(engine.recording.failures).toEqual([outage]);
  });

  it('parks a message whose handling fails alike on every delivery, after a bounded number of them', async () => {
    const engine = start();
    engine.ledger.failure = new RangeError('Maximum call stack size exceeded');
    const deliveries = Array.from({ length: MAX_FAILED_HANDLINGS }, (_, index) =>
      eventMessage('ten_a', 9, { redelivered: index > 0 }),
    );

    for (const delivery of deliveries) {
      engine.source.push(delivery);
      await until(() => delivery.replies.length > 0);
    }
    expect(deliveries.map((delivery) => delivery.replies)).toEqual([
      [`nak ${RETRY_FAILED_MESSAGE_MS}`],
      [`nak ${RETRY_FAILED_MESSAGE_MS}`],
      ['ack'],
    ]);
    expect(engine.deadLetters.parked).toEqual([
      {
        seq: 9,
        reason: 'handling-failed',
        detail:
          'its handling failed 3 times in one engine; the last time: Maximum call stack size exceeded',
      },
    ]);
  });

  it('never parks a message for the database being away, however often', async () => {
    const engine = start();
    engine.ledger.failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const deliveries = Array.from({ length: MAX_FAILED_HANDLINGS + 2 }, () =>
      eventMessage('ten_a', 10, { redelivered: true }),
    );

    for (const delivery of deliveries) {
      engine.source.push(delivery);
      await until(() => delivery.replies.length > 0);
    }
    expect(
      deliveries.every((delivery) => delivery.replies[0] === `nak ${RETRY_FAILED_MESSAGE_MS}`),
    ).toBe(true);
    expect(engine.deadLetters.parked).toEqual([]);
  });

  it('parks an envelope nested deeper than the limit with its reason, and an envelope naming its tenant twice', async () => {
    const engine = start();
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    const subject = SUBJECTS.event('ten_a', 'alert.created');
    const head =
      '{"id":"evt_deep","type":"alert.created","tenant_id":"ten_a","created_at":"2026-11-27T10:00:00.000Z"';
    const deep = new FakeMessage(
      subject,
      `${head},"data":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_001)}`,
      11,
    );
    const twice = new FakeMessage(
      subject,
      `${head.replace('"tenant_id":"ten_a"', '"tenant_id":"ten_b"')},"data":{},"tenant_id":"ten_a"}`,
      12,
    );

    engine.source.push(deep, twice);
    await until(() => deep.replies.length > 0 && twice.replies.length > 0);
    expect(engine.deadLetters.parked.map(({ seq, reason }) => [seq, reason])).toEqual([
      [11, 'envelope-too-deep'],
      [12, 'duplicate-member'],
    ]);
    expect([deep.replies, twice.replies]).toEqual([['ack'], ['ack']]);
    expect(engine.dispatcher.orders).toEqual([]);
  });

  it('stopping hands back what was pulled and not taken, and waits for what is in hand', async () => {
    // Room for one fan-out and one delivery: the first message's holds it, the second waits.
    const engine = start(platformPolicy(), { maxDeliveriesInFlight: 1, maxFanningOut: 1 });
    engine.dispatcher.hold = true;
    engine.subscribers.byTenant.set('ten_a', [endpoint('wh_1', 'ten_a')]);
    engine.subscribers.byTenant.set('ten_b', [endpoint('wh_2', 'ten_b')]);
    const inHand = eventMessage('ten_a', 1);
    const waiting = eventMessage('ten_b', 2);
    engine.source.push(inHand, waiting);
    await until(() => engine.dispatcher.orders.length === 1 && engine.intake.messagesHeld === 2);

    const stopped = engine.intake.stop();
    await until(() => waiting.replies.length > 0);
    expect(waiting.replies).toEqual(['nak']);
    expect(inHand.replies).toEqual([]);
    engine.dispatcher.releaseHeld();
    await stopped;
    expect(inHand.replies).toEqual(['ack']);
    running = undefined;
  });

  it('skips, unhandled, what a lane covers, and counts it', async () => {
    const clock = new FakeClock();
    const view = new LaneView(
      {
        maxViewAgeMs: 5000,
        mainPutBackMs: 100,
        putBackMs: 100,
        maxConcurrency: 64,
        hotTenantShare: 0.5,
      },
      clock,
    );
    view.replace(
      [
        {
          tenantId: 'ten_hot',
          consumerName: 'svc-delivery-lane-ten_hot-10',
          startSeq: 10,
          endSeq: null,
          closingSince: null,
        },
      ],
      clock.now(),
    );
    const engine = start(mainIntakePolicy(view));
    engine.subscribers.byTenant.set('ten_hot', [endpoint('wh_1', 'ten_hot')]);
    engine.subscribers.byTenant.set('ten_b', [endpoint('wh_2', 'ten_b')]);
    const covered = eventMessage('ten_hot', 12);
    const other = eventMessage('ten_b', 13);

    engine.source.push(covered, other);
    await until(() => covered.replies.length > 0 && other.replies.length > 0);
    expect(covered.replies).toEqual(['ack']);
    expect(other.replies).toEqual(['ack']);
    expect(engine.dispatcher.orders.map((order) => order.endpoint.id)).toEqual(['wh_2']);
    const skipped = await engine.metrics.messagesSkipped.get();
    expect(skipped.values[0].value).toBe(1);
  });
});
