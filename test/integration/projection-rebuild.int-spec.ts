import {
  AttemptPolicy,
  decideAttempted,
  decideCancelled,
  decideDeferred,
  decideRacedAttempt,
  decideRedriven,
  DeliveryState,
  rebuildDeliveryProjections,
  resultOfStatus,
} from '@svc/deliveries';
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

    const counts = await db.dataSource.transaction((manager) =>
      rebuildDeliveryProjections(manager),
    );

    expect(counts).toEqual({ deliveries: 6, attempts: 11, scheduled: 3 });
    expect(await snapshot()).toEqual(live);
  });
});
