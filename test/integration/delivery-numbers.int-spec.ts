import { DELIVERY_EVENT_TYPES, DeliveryNumbers, DeliveryWorkQueue } from '@svc/deliveries';
import { deliveryIdentity } from '@svc/testing/builders';
import { DataSource } from 'typeorm';
import { payloadOf, recordDelivery, suiteDatabase, uniqueIds } from './delivery-tables';

/**
 * Sequence numbers against a real PostgreSQL (ADR 0045): claimed with the body in one statement,
 * gap-free per endpoint under concurrent events and racing copies of one event, kept by a resumed
 * copy, and never burnt by a statement that fails or is cut off.
 */
describe('DeliveryNumbers', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let numbers: DeliveryNumbers;
  const { endpoints, eventId } = uniqueIds('n');

  beforeAll(async () => {
    db = await suiteDatabase(10);
    numbers = new DeliveryNumbers(db.dataSource);
  });
  afterAll(() => db.close());

  async function counter(endpointId: string): Promise<number | null> {
    const [row]: { last: string }[] = await db.dataSource.query(
      'SELECT last FROM endpoint_sequences WHERE endpoint_id = $1',
      [endpointId],
    );
    return row ? Number(row.last) : null;
  }

  async function claimsOf(tenantId: string, event: string): Promise<Record<string, number>> {
    const rows: { endpoint_id: string; sequence: string }[] = await db.dataSource.query(
      'SELECT endpoint_id, sequence FROM delivery_numbers WHERE tenant_id = $1 AND event_id = $2',
      [tenantId, event],
    );
    return Object.fromEntries(rows.map((row) => [row.endpoint_id, Number(row.sequence)]));
  }

  it("numbers each endpoint's deliveries 1, 2, 3… and stores the body with them", async () => {
    const [a, b] = endpoints(2);
    const first = payloadOf('ten_n', eventId(), '{"n":1}');
    const second = payloadOf('ten_n', eventId(), '{"n":2}');
    expect(await numbers.claimForNewEvent(first, [a, b])).toEqual({
      kind: 'claimed',
      numbers: new Map([
        [a, 1],
        [b, 1],
      ]),
    });
    expect(await numbers.claimForNewEvent(second, [b])).toEqual({
      kind: 'claimed',
      numbers: new Map([[b, 2]]),
    });
    const [stored]: { body: string }[] = await db.dataSource.query(
      'SELECT body FROM inbound_events WHERE tenant_id = $1 AND event_id = $2',
      ['ten_n', second.eventId],
    );
    expect(stored.body).toBe('{"n":2}');
    expect(await claimsOf('ten_n', first.eventId)).toEqual({ [a]: 1, [b]: 1 });
  });

  it('answers the stored body to a later copy, and moves no counter', async () => {
    const [a] = endpoints(1);
    const event = payloadOf('ten_n', eventId(), '{"first":true}');
    await numbers.claimForNewEvent(event, [a]);
    const copy = { ...event, body: '{"second":true}' };
    expect(await numbers.claimForNewEvent(copy, [a])).toEqual({
      kind: 'stored',
      storedBody: '{"first":true}',
    });
    expect(await counter(a)).toBe(1);
  });

  it("keeps one tenant's event apart from another's of the same id", async () => {
    const [a] = endpoints(1);
    const id = eventId();
    await numbers.claimForNewEvent(payloadOf('ten_x', id), [a]);
    expect(await numbers.claimForNewEvent(payloadOf('ten_y', id), [a])).toEqual({
      kind: 'claimed',
      numbers: new Map([[a, 2]]),
    });
  });

  it('writes nothing for an event no endpoint subscribes to', async () => {
    const event = payloadOf('ten_n', eventId());
    expect(await numbers.claimForNewEvent(event, [])).toEqual({
      kind: 'claimed',
      numbers: new Map(),
    });
    expect(await claimsOf('ten_n', event.eventId)).toEqual({});
    const bodies: unknown[] = await db.dataSource.query(
      'SELECT 1 FROM inbound_events WHERE tenant_id = $1 AND event_id = $2',
      ['ten_n', event.eventId],
    );
    expect(bodies).toHaveLength(0);
  });

  it('gives copies of one event racing on separate connections one number, claimed once', async () => {
    const shared = endpoints(3);
    const event = payloadOf('ten_n', eventId());
    const claims = await Promise.all(
      Array.from({ length: 8 }, () => numbers.claimForNewEvent(event, shared)),
    );
    expect(claims.filter((claim) => claim.kind === 'claimed')).toHaveLength(1);
    expect(claims.filter((claim) => claim.kind === 'stored')).toHaveLength(7);
    for (const endpointId of shared) {
      expect(await counter(endpointId)).toBe(1);
    }
  });

  it('numbers concurrent events sharing endpoints exactly 1..n per endpoint, in any order', async () => {
    const shared = endpoints(4);
    // Each event names the shared endpoints in another order: counters are still taken in one
    // order, so no two statements wait for each other.
    const events = Array.from({ length: 40 }, (_, index) => ({
      payload: payloadOf('ten_n', eventId()),
      endpointIds: index % 2 === 0 ? shared : [...shared].reverse(),
    }));
    const claims = await Promise.all(
      events.map(({ payload, endpointIds }) => numbers.claimForNewEvent(payload, endpointIds)),
    );
    for (const endpointId of shared) {
      const seen = claims
        .map((claim) => (claim.kind === 'claimed' ? claim.numbers.get(endpointId) : undefined))
        .sort((x, y) => x! - y!);
      expect(seen).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    }
  });

  it('resumes with the numbers claimed before and numbers only the endpoints without one', async () => {
    const [a, b, later] = endpoints(3);
    const event = payloadOf('ten_n', eventId());
    await numbers.claimForNewEvent(payloadOf('ten_n', eventId()), [later]);
    await numbers.claimForNewEvent(event, [a, b]);
    // `b` unsubscribed since, `later` subscribed: `b`'s number is still answered.
    expect((await numbers.claimForResumedEvent(event, [a, later])).numbers).toEqual(
      new Map([
        [a, 1],
        [b, 1],
        [later, 2],
      ]),
    );
    expect((await numbers.claimForResumedEvent(event, [a, later])).numbers).toEqual(
      new Map([
        [a, 1],
        [b, 1],
        [later, 2],
      ]),
    );
    expect(await counter(later)).toBe(2);
  });

  it('lets racing resumed copies claim a new endpoint once, the losers rolled back whole', async () => {
    const [a, added] = endpoints(2);
    const event = payloadOf('ten_n', eventId());
    await numbers.claimForNewEvent(event, [a]);
    const resumed = await Promise.all(
      Array.from({ length: 6 }, () => numbers.claimForResumedEvent(event, [a, added])),
    );
    for (const claim of resumed) {
      expect(claim.numbers).toEqual(
        new Map([
          [a, 1],
          [added, 1],
        ]),
      );
    }
    expect(await counter(added)).toBe(1);
  });

  it('moves no counter and stores no body when its statement fails half-way', async () => {
    const [a] = endpoints(1);
    await numbers.claimForNewEvent(payloadOf('ten_n', eventId()), [a]);
    // No partition holds this retention key: the insert of the claim fails after the counter
    // moved, and the whole statement is undone.
    const unplaceable = { ...payloadOf('ten_n', eventId()), retentionKey: new Date('2200-01-01') };
    await expect(numbers.claimForNewEvent(unplaceable, [a])).rejects.toThrow(/partition/);
    expect(await counter(a)).toBe(1);
    expect(await numbers.claimForNewEvent(payloadOf('ten_n', eventId()), [a])).toEqual({
      kind: 'claimed',
      numbers: new Map([[a, 2]]),
    });
  });

  it('moves no counter when its connection is cut off before the commit', async () => {
    const [a] = endpoints(1);
    await numbers.claimForNewEvent(payloadOf('ten_n', eventId()), [a]);
    const holder = db.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query('SELECT last FROM endpoint_sequences WHERE endpoint_id = $1 FOR UPDATE', [
      a,
    ]);
    const cut = payloadOf('ten_n', eventId());
    const claiming = numbers.claimForNewEvent(cut, [a]);
    const pid = await blockedBackend(db.dataSource);
    await db.dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
    await expect(claiming).rejects.toThrow();
    await holder.rollbackTransaction();
    await holder.release();
    expect(await counter(a)).toBe(1);
    expect(await claimsOf('ten_n', cut.eventId)).toEqual({});
    // The copy JetStream hands out again claims the next number, as if the first never ran.
    expect(await numbers.claimForNewEvent(cut, [a])).toEqual({
      kind: 'claimed',
      numbers: new Map([[a, 2]]),
    });
  });
});

/** The backend of a claim waiting for a counter row's lock. */
async function blockedBackend(dataSource: DataSource): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const rows: { pid: number }[] = await dataSource.query(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'
          AND query LIKE '%endpoint_sequences%'`,
    );
    if (rows.length > 0) {
      return rows[0].pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no claim waited for the lock');
}

/**
 * FIFO endpoints' queues (ADR 0045): a delivery takes its place when numbered, becomes due once
 * its deferral is recorded, and only each queue's head is ever claimed.
 */
describe('ordered queues in the schedule', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let numbers: DeliveryNumbers;
  let queue: DeliveryWorkQueue;
  let serial = 0;

  beforeAll(async () => {
    db = await suiteDatabase(6);
    numbers = new DeliveryNumbers(db.dataSource);
    queue = new DeliveryWorkQueue(db.dataSource);
  });
  afterAll(() => db.close());

  /** A FIFO endpoint's event numbered (its place taken), and optionally its deferral recorded. */
  async function queued(endpointId: string, recorded: boolean) {
    serial += 1;
    const payload = payloadOf('ten_q', `evt_q${serial}`);
    const deliveryId = `del_q${endpointId}_${serial}`;
    const claim = await numbers.claimForNewEvent(
      payload,
      [endpointId],
      [{ endpointId, deliveryId }],
    );
    if (claim.kind !== 'claimed') {
      throw new Error('not claimed');
    }
    const sequence = claim.numbers.get(endpointId)!;
    if (recorded) {
      await record(deliveryId, endpointId, payload.eventId, sequence);
    }
    return { deliveryId, sequence, eventId: payload.eventId, payload };
  }

  async function record(deliveryId: string, endpointId: string, eventId: string, sequence: number) {
    await recordDelivery(db.dataSource, null, [
      {
        type: DELIVERY_EVENT_TYPES.deferred,
        data: {
          ...deliveryIdentity({
            delivery_id: deliveryId,
            endpoint_id: endpointId,
            event_id: eventId,
            tenant_id: 'ten_q',
          }),
          sequence,
          due_at: new Date(Date.now() - 1000).toISOString(),
          reason: 'ordered',
        },
      },
    ]);
  }

  const headsOf = async (endpointId?: string) =>
    (await queue.claimOrderedHeads(10, 30_000, endpointId)).map(({ delivery }) => delivery.id);

  it('tells a resumed copy which deliveries hold a place in their queue, whatever the endpoint is now', async () => {
    const placed = await queued('wh_fifo5', false);
    const eventId = placed.eventId;
    const resumed = await numbers.claimForResumedEvent(
      placed.payload,
      ['wh_fifo5', 'wh_plain5', 'wh_fifo6'],
      [{ endpointId: 'wh_fifo6', deliveryId: `del_q_${eventId}_wh_fifo6` }],
    );
    expect(resumed.numbers).toEqual(
      new Map([
        ['wh_fifo5', placed.sequence],
        ['wh_plain5', 1],
        ['wh_fifo6', 1],
      ]),
    );
    expect(resumed.queued).toEqual(new Set(['wh_fifo5', 'wh_fifo6']));
  });

  it('claims only the head, and the next once the head has left the schedule', async () => {
    const waitingBefore = await queue.orderedWaiting();
    const first = await queued('wh_fifo1', true);
    const second = await queued('wh_fifo1', true);
    expect(await queue.orderedWaiting()).toBe(waitingBefore + 2);
    expect(await headsOf('wh_fifo1')).toEqual([first.deliveryId]);
    // Claimed: nothing else of the queue is free.
    expect(await headsOf('wh_fifo1')).toEqual([]);
    expect(await queue.claimDue(10, 30_000)).toEqual([]);
    await queue.forget(first.deliveryId);
    expect(await headsOf()).toEqual([second.deliveryId]);
  });

  it('never lets a delivery numbered later but recorded sooner overtake the one before', async () => {
    const earlier = await queued('wh_fifo2', false);
    const later = await queued('wh_fifo2', true);
    expect(await headsOf('wh_fifo2')).toEqual([]);
    await record(earlier.deliveryId, 'wh_fifo2', earlier.eventId, earlier.sequence);
    expect(await headsOf('wh_fifo2')).toEqual([earlier.deliveryId]);
    await queue.forget(earlier.deliveryId);
    expect(await headsOf('wh_fifo2')).toEqual([later.deliveryId]);
  });

  it('takes one head per queue in a round, and never two of one queue to racing engines', async () => {
    const a = await queued('wh_fifo3', true);
    await queued('wh_fifo3', true);
    const b = await queued('wh_fifo4', true);
    const rounds = await Promise.all([headsOf(), headsOf(), headsOf()]);
    expect(rounds.flat().sort()).toEqual([a.deliveryId, b.deliveryId].sort());
  });
});
