import { DeliveryWorkQueue } from '@svc/deliveries';
import { attemptedEvent, deliveryIdentity } from '@svc/testing/builders';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { payloadOf, recordDelivery, suiteDatabase } from './delivery-tables';

/**
 * The work queue against a real PostgreSQL: claims with a lease and SKIP LOCKED, postponement,
 * forgetting, the backlog count, and the tenant-scoped reads of stored bodies and served endpoints.
 */
describe('DeliveryWorkQueue', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let queue: DeliveryWorkQueue;
  let sequence = 0;

  beforeAll(async () => {
    db = await suiteDatabase();
    queue = new DeliveryWorkQueue(db.dataSource);
  });
  afterAll(() => db.close());
  beforeEach(() => db.dataSource.query('DELETE FROM delivery_schedule'));

  /** A delivery whose retry is due `dueInMs` from now (negative: already due). */
  async function scheduled(dueInMs: number, tenantId = 'ten_1', endpointId = 'wh_1') {
    sequence += 1;
    const identity = deliveryIdentity({
      delivery_id: `del_q${sequence}`,
      event_id: `evt_q${sequence}`,
      tenant_id: tenantId,
      endpoint_id: endpointId,
    });
    const now = Date.now();
    return recordDelivery(
      db.dataSource,
      null,
      [
        attemptedEvent({
          ...identity,
          attempted_at: new Date(now - 1000).toISOString(),
          next_attempt_at: new Date(now + dueInMs).toISOString(),
        }),
      ],
      payloadOf(tenantId, identity.event_id, `{"n":${sequence}}`),
    );
  }

  it('claims only what is due, with its stored body', async () => {
    const older = await scheduled(-2000);
    const newer = await scheduled(-1000);
    await scheduled(60_000);
    const claimed = await queue.claimDue(10, 30_000);
    expect(claimed.map(({ delivery }) => delivery.id).sort()).toEqual([older.id, newer.id].sort());
    const body = claimed.find(({ delivery }) => delivery.id === older.id)?.payload?.body;
    expect(JSON.parse(body!)).toEqual({ n: Number(older.id.slice('del_q'.length)) });
  });

  it('claims at most the limit asked for, the longest due first', async () => {
    const [oldest, middle, newest] = [
      await scheduled(-3000),
      await scheduled(-2000),
      await scheduled(-1000),
    ];
    const first = await queue.claimDue(2, 30_000);
    expect(first.map(({ delivery }) => delivery.id).sort()).toEqual([oldest.id, middle.id].sort());
    expect((await queue.claimDue(2, 30_000)).map(({ delivery }) => delivery.id)).toEqual([
      newest.id,
    ]);
  });

  it('claims none of the endpoints it is told to skip, and leaves theirs due and unclaimed', async () => {
    const skipped = await scheduled(-3000, 'ten_1', 'wh_full');
    const taken = await scheduled(-1000, 'ten_1', 'wh_free');
    const claimed = await queue.claimDue(10, 30_000, ['wh_full', 'wh_other']);
    expect(claimed.map(({ delivery }) => delivery.id)).toEqual([taken.id]);
    expect(await queue.dueBacklog()).toBe(1);
    expect(await queue.dueBacklog(['wh_full'])).toBe(0);
    expect((await queue.claimDue(10, 30_000, [])).map(({ delivery }) => delivery.id)).toEqual([
      skipped.id,
    ]);
  });

  it('holds a claim for its lease, and hands it out again once the lease lapses', async () => {
    const due = await scheduled(-1000);
    expect((await queue.claimDue(10, 300)).map(({ delivery }) => delivery.id)).toEqual([due.id]);
    expect(await queue.claimDue(10, 300)).toEqual([]);
    expect(await queue.dueBacklog()).toBe(0);
    await sleep(400);
    expect(await queue.dueBacklog()).toBe(1);
    expect((await queue.claimDue(10, 300)).map(({ delivery }) => delivery.id)).toEqual([due.id]);
  });

  it('gives two engines claiming at once disjoint deliveries (SKIP LOCKED)', async () => {
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => scheduled(-1000 - i)));
    const other = new DataSource({ ...db.dataSource.options });
    await other.initialize();
    try {
      const [mine, theirs] = await Promise.all([
        queue.claimDue(15, 30_000),
        new DeliveryWorkQueue(other).claimDue(15, 30_000),
      ]);
      const ids = [...mine, ...theirs].map(({ delivery }) => delivery.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(all.map((d) => d.id).sort());
    } finally {
      await other.destroy();
    }
  });

  it('postpones a claim by the delay given', async () => {
    const due = await scheduled(-1000);
    await queue.claimDue(10, 30_000);
    await queue.postpone(due.id, 200);
    expect(await queue.claimDue(10, 30_000)).toEqual([]);
    await sleep(300);
    expect((await queue.claimDue(10, 30_000)).map(({ delivery }) => delivery.id)).toEqual([due.id]);
  });

  it('forgets a delivery that left the schedule', async () => {
    const due = await scheduled(-1000);
    await queue.forget(due.id);
    expect(await queue.dueBacklog()).toBe(0);
    expect(await queue.claimDue(10, 30_000)).toEqual([]);
  });

  it("reads stored bodies and served endpoints by tenant, never another tenant's", async () => {
    const mine = await scheduled(60_000, 'ten_a');
    // With no endpoints to number, the claim only reads the stored body.
    const copyOf = (tenantId: string) => ({
      eventId: mine.eventId,
      tenantId,
      type: 'alert.created',
      body: '{}',
      traceContext: null,
      retentionKey: new Date(),
    });
    expect(await queue.claimForNewEvent(copyOf('ten_a'), [], [])).toEqual({
      kind: 'stored',
      storedBody: expect.any(String),
    });
    expect(await queue.claimForNewEvent(copyOf('ten_b'), [], [])).toEqual({
      kind: 'claimed',
      numbers: new Map(),
    });
    expect([...(await queue.endpointsServed('ten_a', mine.eventId))]).toEqual([mine.endpointId]);
    expect([...(await queue.endpointsServed('ten_b', mine.eventId))]).toEqual([]);
  });

  it('claims a delivery with no stored body of its tenant without one (it is cancelled)', async () => {
    sequence += 1;
    const identity = deliveryIdentity({ delivery_id: `del_q${sequence}`, event_id: 'evt_shared' });
    await recordDelivery(db.dataSource, null, [
      attemptedEvent({
        ...identity,
        next_attempt_at: new Date(Date.now() - 1000).toISOString(),
      }),
    ]);
    await db.dataSource.transaction((manager) =>
      manager.query(
        `INSERT INTO inbound_events (event_id, tenant_id, type, body, retention_key)
         VALUES ($1, 'ten_other', 'alert.created', '{}', now())`,
        ['evt_shared'],
      ),
    );
    const [claimed] = await queue.claimDue(10, 30_000);
    expect(claimed.delivery.id).toBe(identity.delivery_id);
    expect(claimed.payload).toBeUndefined();
  });
});
