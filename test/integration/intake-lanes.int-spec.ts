import { openDataSource } from '@svc/database';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { LaneRegistry } from '../../apps/delivery/src/adapters/postgres/lane-registry';
import { suiteDatabase } from './delivery-tables';

/**
 * The registry of hot-tenant lanes against a real PostgreSQL (ADR 0032): two engines, each with
 * a pool of its own, open, close and remove lanes at the same moment, and the table keeps one
 * lane per tenant, no more lanes than allowed, and never loses a reopening to a removal.
 */
describe('the registry of hot-tenant lanes shared through PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let otherPool: DataSource;
  let engines: [LaneRegistry, LaneRegistry];
  let sequence = 0;
  const tenant = () => `ten_lane${(sequence += 1)}`;

  beforeAll(async () => {
    db = await suiteDatabase();
    otherPool = await openDataSource({ url: db.url, poolSize: 4 });
    engines = [new LaneRegistry(db.dataSource), new LaneRegistry(otherPool)];
  });
  afterEach(() => db.dataSource.query('DELETE FROM intake_lanes'));
  afterAll(async () => {
    await otherPool.destroy();
    await db.close();
  });

  it('opens one lane for a tenant however many engines open it at once; the others get that one', async () => {
    const tenantId = tenant();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        engines[i % 2].open(
          { tenantId, consumerName: `svc-delivery-lane-${tenantId}-${100 + i}`, startSeq: 100 + i },
          16,
        ),
      ),
    );

    const opened = answers.filter((answer) => answer?.opened);
    expect(opened).toHaveLength(1);
    const lane = opened[0]!.lane;
    for (const answer of answers) {
      expect(answer?.lane).toEqual(lane);
    }
    expect(await engines[0].list()).toEqual([lane]);
    expect(lane).toMatchObject({ tenantId, endSeq: null, closingSince: null });
  });

  it('never opens more lanes than allowed, also when engines open lanes for many tenants at once', async () => {
    const tenants = Array.from({ length: 12 }, () => tenant());
    const answers = await Promise.all(
      tenants.map((tenantId, i) =>
        engines[i % 2].open(
          { tenantId, consumerName: `svc-delivery-lane-${tenantId}-1`, startSeq: 1 },
          5,
        ),
      ),
    );

    expect(answers.filter((answer) => answer?.opened)).toHaveLength(5);
    expect(answers.filter((answer) => answer === null)).toHaveLength(7);
    expect(await engines[1].list()).toHaveLength(5);
  });

  it('closes a lane once, at the end it was given, and reopens it once', async () => {
    const tenantId = tenant();
    await engines[0].open({ tenantId, consumerName: `lane-${tenantId}`, startSeq: 50 }, 16);

    const closings = await Promise.all([
      engines[0].markClosing(tenantId, 400),
      engines[1].markClosing(tenantId, 410),
    ]);
    expect(closings.filter(Boolean)).toHaveLength(1);
    const [closing] = await engines[1].list();
    expect([400, 410]).toContain(closing.endSeq);
    expect(closing.closingSince).toBeInstanceOf(Date);

    const reopenings = await Promise.all([
      engines[0].reopen(tenantId),
      engines[1].reopen(tenantId),
    ]);
    expect(reopenings.filter(Boolean)).toHaveLength(1);
    expect(await engines[0].list()).toEqual([
      expect.objectContaining({ tenantId, startSeq: 50, endSeq: null, closingSince: null }),
    ]);
    expect(await engines[0].reopen(tenantId)).toBe(false);
  });

  it('gives a lane closed before anything reached it an end just before its start', async () => {
    const tenantId = tenant();
    await engines[0].open({ tenantId, consumerName: `lane-${tenantId}`, startSeq: 900 }, 16);
    expect(await engines[0].markClosing(tenantId, 850)).toBe(true);
    expect((await engines[0].list())[0].endSeq).toBe(899);
  });

  it('removes a closing lane only after the grace period, and only if the lane still may go', async () => {
    const tenantId = tenant();
    await engines[0].open({ tenantId, consumerName: `lane-${tenantId}`, startSeq: 1 }, 16);
    const mayGo = jest.fn(() => Promise.resolve(true));

    expect(await engines[0].removeClosed(tenantId, 0, mayGo)).toBe(false);
    expect(mayGo).not.toHaveBeenCalled();
    await engines[0].markClosing(tenantId, 10);
    expect(await engines[0].removeClosed(tenantId, 60_000, mayGo)).toBe(false);
    expect(mayGo).not.toHaveBeenCalled();

    await sleep(50);
    expect(await engines[1].removeClosed(tenantId, 20, () => Promise.resolve(false))).toBe(false);
    expect(await engines[1].list()).toHaveLength(1);
    expect(await engines[1].removeClosed(tenantId, 20, mayGo)).toBe(true);
    expect(mayGo).toHaveBeenCalledWith(expect.objectContaining({ tenantId, endSeq: 10 }));
    expect(await engines[0].list()).toEqual([]);
  });

  it('makes a reopening wait for a removal in progress: the lane is either gone or open, never closing and gone', async () => {
    const tenantId = tenant();
    await engines[0].open({ tenantId, consumerName: `lane-${tenantId}`, startSeq: 1 }, 16);
    await engines[0].markClosing(tenantId, 10);
    await sleep(50);

    let reopened: Promise<boolean> | undefined;
    const removed = await engines[0].removeClosed(tenantId, 20, async () => {
      // The other engine tries to keep the lane open while this one holds the row.
      reopened = engines[1].reopen(tenantId);
      await sleep(200);
      return true;
    });

    expect(removed).toBe(true);
    expect(await reopened).toBe(false);
    expect(await engines[1].list()).toEqual([]);
    // The tenant can have a lane again, a new one.
    const again = await engines[1].open(
      { tenantId, consumerName: `lane-${tenantId}-2`, startSeq: 500 },
      16,
    );
    expect(again).toMatchObject({ opened: true, lane: { startSeq: 500, endSeq: null } });
  });
});
