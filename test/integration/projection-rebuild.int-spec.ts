import {
  AttemptPolicy,
  decideAttempted,
  decideCancelled,
  decideDeferred,
  decideRacedAttempt,
  decideRedriven,
  DeliveryState,
  refoldDeliveryProjections,
  resultOfStatus,
} from '@svc/deliveries';
import { newId } from '@svc/contracts';
import { deliveryIdentity } from '@svc/testing/builders';
import { recordDelivery, suiteDatabase } from './delivery-tables';

const policy: AttemptPolicy = {
  retryScheduleMs: [5000, 30_000, 300_000, 1_800_000],
  maxAttempts: 5,
};
const failed = resultOfStatus(500, 12, 'oops');
const succeeded = resultOfStatus(200, 7, 'ok');

/**
 * The delivery projections (deliveries, delivery_attempts, delivery_schedule) are a fold of the
 * log: dropped and rebuilt from it, they are the same rows as the live ones, whatever the
 * deliveries went through.
 */
describe('delivery projections rebuilt from the log', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;

  beforeAll(async () => {
    db = await suiteDatabase();
  });
  afterAll(() => db.close());

  /** Runs attempts with these results on one delivery, each a decision on the state before it. */
  async function attempts(id: string, results: (typeof failed)[]): Promise<DeliveryState> {
    const identity = deliveryIdentity({ delivery_id: id, event_id: `evt_${id}` });
    let state: DeliveryState | null = null;
    for (const result of results) {
      const { event } = decideAttempted({ identity, result, policy }, state, new Date());
      state = await recordDelivery(db.dataSource, state, [event]);
    }
    return state!;
  }

  const snapshot = async () => ({
    deliveries: await db.dataSource.query('SELECT * FROM deliveries ORDER BY id'),
    attempts: await db.dataSource.query('SELECT * FROM delivery_attempts ORDER BY position'),
    schedule: await db.dataSource.query('SELECT * FROM delivery_schedule ORDER BY delivery_id'),
  });

  it('gives the same rows as the live projections', async () => {
    await attempts('del_ok', [succeeded]);
    await attempts('del_retrying', [failed, failed]);
    const abandoned = await attempts('del_redriven', [failed, failed, failed, failed, failed]);
    await recordDelivery(
      db.dataSource,
      abandoned,
      decideRedriven({ abandonedSince: new Date(0) }, abandoned, new Date()),
    );
    const deferredIdentity = deliveryIdentity({ delivery_id: 'del_deferred', event_id: 'evt_d' });
    await recordDelivery(
      db.dataSource,
      null,
      decideDeferred({ identity: deferredIdentity, delayMs: 250 }, null, new Date()),
    );
    const doomed = await attempts('del_cancelled', [failed]);
    await recordDelivery(
      db.dataSource,
      doomed,
      decideCancelled({ endpointFound: false, payloadFound: true }, doomed, new Date()),
    );
    const raced = await attempts('del_raced', [failed]);
    const { event: racing } = decideAttempted(
      { identity: deliveryIdentity({ delivery_id: 'del_other' }), result: succeeded, policy },
      null,
      new Date(),
    );
    await recordDelivery(db.dataSource, raced, [
      decideRacedAttempt({ attempt: racing.data }, raced),
    ]);

    const live = await snapshot();
    expect(live.deliveries.map((row: { status: string }) => row.status).sort()).toEqual([
      'cancelled',
      'pending',
      'pending',
      'pending',
      'succeeded',
      'succeeded',
    ]);
    expect(live.schedule.map((row: { delivery_id: string }) => row.delivery_id)).toEqual([
      'del_deferred',
      'del_redriven',
      'del_retrying',
    ]);

    // Dropped, then replayed from the log (in pages of three events).
    await db.dataSource.query('TRUNCATE deliveries, delivery_attempts, delivery_schedule');
    const counts = await refoldDeliveryProjections(db.dataSource, { batchSize: 3 });

    expect(counts).toEqual({ deliveries: 6, attempts: 11, scheduled: 3, orphansRemoved: 0 });
    expect(await snapshot()).toEqual(live);
  });
});

/**
 * The rebuild at production size (ADR 0023): pages of the log, a transaction each, while writers
 * run. It repairs what is wrong, removes what the log does not stand for, and never undoes a live
 * write it did not see.
 */
describe('delivery projections refolded in pages', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;

  beforeAll(async () => {
    db = await suiteDatabase();
  });
  afterAll(() => db.close());

  const snapshot = async () => ({
    deliveries: await db.dataSource.query('SELECT * FROM deliveries ORDER BY id'),
    attempts: await db.dataSource.query('SELECT * FROM delivery_attempts ORDER BY position'),
    schedule: await db.dataSource.query(
      'SELECT delivery_id, tenant_id, endpoint_id, due_at FROM delivery_schedule ORDER BY delivery_id',
    ),
  });

  async function attemptsOn(id: string, results: (typeof failed)[]): Promise<DeliveryState> {
    const identity = deliveryIdentity({ delivery_id: newId('del'), event_id: `evt_${id}` });
    let state: DeliveryState | null = null;
    for (const result of results) {
      const { event } = decideAttempted({ identity, result, policy }, state, new Date());
      state = await recordDelivery(db.dataSource, state, [event]);
    }
    return state!;
  }

  it('repairs wrong and missing rows, removes orphans, and equals the live projections', async () => {
    const streams = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        attemptsOn(
          `p${i}`,
          i % 3 === 0 ? [succeeded] : i % 3 === 1 ? [failed, succeeded] : [failed],
        ),
      ),
    );
    const live = await snapshot();
    await db.dataSource.query(`UPDATE deliveries SET status = 'abandoned' WHERE id = $1`, [
      streams[0].id,
    ]);
    await db.dataSource.query('DELETE FROM deliveries WHERE id = $1', [streams[1].id]);
    await db.dataSource.query('DELETE FROM delivery_attempts WHERE delivery_id = $1', [
      streams[4].id,
    ]);
    await db.dataSource.query('DELETE FROM delivery_schedule WHERE delivery_id = $1', [
      streams[2].id,
    ]);
    await db.dataSource.query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, tenant_id, event_type, status, attempts,
                               run_attempts, created_at, version, retention_key)
       VALUES ('del_orphan', 'evt_x', 'wh_x', 'ten_x', 'alert.created', 'pending', 1, 1, now(), 1, '-infinity')`,
    );
    const pages: number[] = [];

    const result = await refoldDeliveryProjections(db.dataSource, {
      batchSize: 4,
      onProgress: ({ events }) => pages.push(events),
    });

    expect(await snapshot()).toEqual(live);
    expect(result).toMatchObject({ deliveries: 12, attempts: 16, scheduled: 4, orphansRemoved: 1 });
    expect(pages.length).toBeGreaterThan(3);
  });

  it('never undoes a write made after it read the log', async () => {
    const delivery = await attemptsOn('ahead', [failed]);
    // A live writer got there first: the row is at a version the refold's page does not have.
    await db.dataSource.query(
      `UPDATE deliveries SET version = 9, status = 'succeeded' WHERE id = $1`,
      [delivery.id],
    );
    await refoldDeliveryProjections(db.dataSource, { batchSize: 3 });
    const [row] = await db.dataSource.query<{ version: number; status: string }[]>(
      'SELECT version, status FROM deliveries WHERE id = $1',
      [delivery.id],
    );
    expect(row).toEqual({ version: 9, status: 'succeeded' });
  });
});
