import { DELIVERY_EVENT_TYPES, decideDeferred } from '@svc/deliveries';
import { readStream } from '@svc/event-store';
import {
  changeEndpoint,
  decideDegrade,
  decideRegister,
  EndpointState,
} from '@svc/webhook-endpoints';
import { attemptedEvent, deliveryIdentity } from '@svc/testing/builders';
import { Registry } from 'prom-client';
import { DeliveryMetrics } from '../../apps/delivery/src/delivery-metrics';
import { ENGINE_TUNING } from '../../apps/delivery/src/engine-tuning';
import { DeliveryRecorder } from '../../apps/delivery/src/recording/delivery-recorder';
import { PostgresRecordWriter } from '../../apps/delivery/src/adapters/postgres/postgres-record-writer';
import { StatusTransition } from '../../apps/delivery/src/recording/endpoint-status-recorder';
import { RecordingHealth } from '../../apps/delivery/src/recording/recording-health';
import { sampleValue } from '../support/metric-value';
import { payloadOf, recordDelivery, suiteDatabase } from './delivery-tables';

/**
 * The recorder's group commit against a real PostgreSQL: records that arrive together share one
 * transaction; a batch meeting a conflict is retried record by record, so only the conflicting
 * record loses, and an attempt that lost is recorded in the delivery that won (ADR 0016).
 */
describe('DeliveryRecorder group commit', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let recorder: DeliveryRecorder;
  let registry: Registry;

  beforeAll(async () => {
    db = await suiteDatabase();
    registry = new Registry();
    const health = new RecordingHealth(ENGINE_TUNING.recordingProbeIntervalMs);
    health.probeWith(() => db.dataSource.query('SELECT 1'));
    // A long linger, so that records handed in together surely share a batch.
    recorder = new DeliveryRecorder(
      new PostgresRecordWriter(db.dataSource),
      new DeliveryMetrics(registry),
      { ...ENGINE_TUNING.recorder, lingerMs: 50 },
      health,
    );
  });
  afterAll(async () => {
    await recorder.drain();
    await db.close();
  });

  const metric = async (name: string) => sampleValue(await registry.metrics(), name);

  /** An endpoint of the log, active, or degraded with `degraded`. */
  async function endpoint(id: string, degraded = false): Promise<void> {
    const now = new Date();
    const change = (decide: (state: EndpointState | null) => object[]) =>
      db.dataSource.transaction((manager) =>
        changeEndpoint(manager, { id }, decide as never, { tenant_id: 'ten_1' }),
      );
    await change((state) =>
      decideRegister(
        {
          endpointId: id,
          tenantId: 'ten_1',
          url: `https://receiver.test/${id}`,
          events: ['alert.created'],
          secretCiphertext: 'sealed',
          environment: 'live',
        },
        state,
        now,
      ),
    );
    if (degraded) {
      await change((state) => decideDegrade({ deliveryId: 'del_before' }, state!, now));
    }
  }

  it('commits the rest of a batch and drops only a stale deferral', async () => {
    const existing = deliveryIdentity({ delivery_id: 'del_g1', event_id: 'evt_g1' });
    await recordDelivery(db.dataSource, null, [attemptedEvent(existing)]);
    const fresh = deliveryIdentity({ delivery_id: 'del_g2', event_id: 'evt_g2' });
    const attempted = deliveryIdentity({ delivery_id: 'del_g3', event_id: 'evt_g3' });
    const now = new Date();
    const batchesBefore = await metric('svc_delivery_commit_batch_size_count');

    const [stale, deferred, first] = await Promise.all([
      // Written as if del_g1 did not exist yet: its stream is at version 1, so this conflicts.
      recorder.record({
        deliveryId: existing.delivery_id,
        before: null,
        event: decideDeferred({ identity: existing, delayMs: 250 }, null, now)[0],
        metadata: { tenant_id: existing.tenant_id },
      }),
      recorder.record({
        deliveryId: fresh.delivery_id,
        before: null,
        event: decideDeferred({ identity: fresh, delayMs: 250 }, null, now)[0],
        metadata: { tenant_id: fresh.tenant_id },
        payload: payloadOf(fresh.tenant_id, fresh.event_id),
      }),
      recorder.record({
        deliveryId: attempted.delivery_id,
        before: null,
        event: attemptedEvent({ ...attempted, succeeded: true, status_code: 200 }),
        metadata: { tenant_id: attempted.tenant_id },
        payload: payloadOf(attempted.tenant_id, attempted.event_id),
      }),
    ]);

    expect(stale).toEqual({ committed: false });
    expect(deferred).toMatchObject({ committed: true, state: { id: 'del_g2', status: 'pending' } });
    expect(first).toMatchObject({ committed: true, state: { id: 'del_g3', version: 1 } });
    const [g1, g2, g3] = await Promise.all(
      ['del_g1', 'del_g2', 'del_g3'].map((id) => readStream(db.dataSource.manager, id)),
    );
    expect(g1.map((event) => event.type)).toEqual([DELIVERY_EVENT_TYPES.attempted]);
    expect(g2.map((event) => event.type)).toEqual([DELIVERY_EVENT_TYPES.deferred]);
    expect(g3.map((event) => event.type)).toEqual([DELIVERY_EVENT_TYPES.attempted]);
    // One batch of three failed as a whole; each record then committed (or lost) on its own.
    expect((await metric('svc_delivery_commit_batch_size_count')) - batchesBefore).toBe(2);
    const schedule: { delivery_id: string }[] = await db.dataSource.query(
      `SELECT delivery_id FROM delivery_schedule WHERE delivery_id IN ('del_g1', 'del_g2', 'del_g3') ORDER BY 1`,
    );
    expect(schedule.map((row) => row.delivery_id)).toEqual(['del_g1', 'del_g2']);
  });

  it('records an attempt that lost the race in the delivery that won, as concurrent', async () => {
    const winner = deliveryIdentity({ delivery_id: 'del_w', event_id: 'evt_w' });
    await recordDelivery(db.dataSource, null, [attemptedEvent(winner)]);
    const loser = { ...winner, delivery_id: 'del_l' };
    const racesBefore = await metric('svc_delivery_concurrent_attempts_total');

    const outcome = await recorder.record({
      deliveryId: loser.delivery_id,
      before: null,
      event: attemptedEvent({ ...loser, succeeded: true, status_code: 200, next_attempt_at: null }),
      metadata: { tenant_id: loser.tenant_id },
    });

    expect(outcome).toMatchObject({
      committed: true,
      state: { id: 'del_w', status: 'succeeded', version: 2 },
    });
    const stream = await readStream(db.dataSource.manager, 'del_w');
    expect(stream[1].data).toMatchObject({ delivery_id: 'del_w', concurrent_with: 'del_l' });
    expect(await readStream(db.dataSource.manager, 'del_l')).toEqual([]);
    const attempts: { delivery_id: string }[] = await db.dataSource.query(
      `SELECT delivery_id FROM delivery_attempts WHERE event_id = 'evt_w'`,
    );
    expect(attempts.map((row) => row.delivery_id)).toEqual(['del_w', 'del_w']);
    expect((await metric('svc_delivery_concurrent_attempts_total')) - racesBefore).toBe(1);
  });

  it('writes a batch that changes no endpoint status in one statement, as the transaction would', async () => {
    await endpoint('wh_one');
    const pending = deliveryIdentity({
      delivery_id: 'del_o1',
      event_id: 'evt_o1',
      endpoint_id: 'wh_one',
    });
    const pendingBefore = await recordDelivery(db.dataSource, null, [attemptedEvent(pending)]);
    const fresh = deliveryIdentity({
      delivery_id: 'del_o2',
      event_id: 'evt_o2',
      endpoint_id: 'wh_one',
    });
    const failing = deliveryIdentity({
      delivery_id: 'del_o3',
      event_id: 'evt_o3',
      endpoint_id: 'wh_one',
    });
    const transaction = jest.spyOn(db.dataSource, 'transaction');
    const succeeded = (identity: typeof pending, attempt = 1) =>
      attemptedEvent({
        ...identity,
        attempt,
        succeeded: true,
        status_code: 200,
        next_attempt_at: null,
      });

    try {
      const receipts = await Promise.all([
        recorder.record({
          deliveryId: pending.delivery_id,
          before: pendingBefore,
          event: succeeded(pending, 2),
          metadata: { tenant_id: pending.tenant_id },
          conclusion: {
            endpointId: 'wh_one',
            deliveryId: pending.delivery_id,
            conclusion: 'succeeded',
          },
        }),
        recorder.record({
          deliveryId: fresh.delivery_id,
          before: null,
          event: succeeded(fresh),
          metadata: { tenant_id: fresh.tenant_id },
          payload: payloadOf(fresh.tenant_id, fresh.event_id, '{"n":2}'),
          conclusion: {
            endpointId: 'wh_one',
            deliveryId: fresh.delivery_id,
            conclusion: 'succeeded',
          },
        }),
        recorder.record({
          deliveryId: failing.delivery_id,
          before: null,
          event: attemptedEvent(failing),
          metadata: { tenant_id: failing.tenant_id },
          payload: payloadOf(failing.tenant_id, failing.event_id, '{"n":3}'),
          conclusion: {
            endpointId: 'wh_one',
            deliveryId: failing.delivery_id,
            conclusion: 'retrying',
          },
        }),
      ]);
      expect(transaction).not.toHaveBeenCalled();
      expect(receipts).toMatchObject([
        { committed: true, state: { id: 'del_o1', status: 'succeeded', version: 2 } },
        { committed: true, state: { id: 'del_o2', status: 'succeeded', version: 1 } },
        { committed: true, state: { id: 'del_o3', status: 'pending', version: 1 } },
      ]);
    } finally {
      transaction.mockRestore();
    }

    const rows: { id: string; status: string; attempts: number; version: number }[] =
      await db.dataSource.query(
        `SELECT id, status, attempts, version FROM deliveries WHERE id LIKE 'del_o%' ORDER BY id`,
      );
    expect(rows).toEqual([
      { id: 'del_o1', status: 'succeeded', attempts: 2, version: 2 },
      { id: 'del_o2', status: 'succeeded', attempts: 1, version: 1 },
      { id: 'del_o3', status: 'pending', attempts: 1, version: 1 },
    ]);
    // Each attempt row carries the position its event got in the log.
    const positions: { attempt_position: string; event_position: string }[] =
      await db.dataSource.query(
        `SELECT a.position::text AS attempt_position, e.position::text AS event_position
           FROM delivery_attempts a
           LEFT JOIN events e ON e.position = a.position
          WHERE a.delivery_id LIKE 'del_o%'`,
      );
    expect(positions).toHaveLength(4);
    positions.forEach((row) => expect(row.attempt_position).toBe(row.event_position));
    const schedule: { delivery_id: string }[] = await db.dataSource.query(
      `SELECT delivery_id FROM delivery_schedule WHERE delivery_id LIKE 'del_o%' ORDER BY 1`,
    );
    expect(schedule.map((row) => row.delivery_id)).toEqual(['del_o3']);
    const bodies: { event_id: string; body: string }[] = await db.dataSource.query(
      `SELECT event_id, body FROM inbound_events WHERE event_id IN ('evt_o2', 'evt_o3') ORDER BY 1`,
    );
    expect(bodies).toEqual([
      { event_id: 'evt_o2', body: '{"n":2}' },
      { event_id: 'evt_o3', body: '{"n":3}' },
    ]);
  });

  it('writes a batch that changes an endpoint status in a transaction, with the endpoint event', async () => {
    await endpoint('wh_degraded', true);
    const identity = deliveryIdentity({
      delivery_id: 'del_r1',
      event_id: 'evt_r1',
      endpoint_id: 'wh_degraded',
    });
    const transitions: StatusTransition[] = [];
    recorder.onEndpointStatusChanged((transition) => transitions.push(transition));
    const transaction = jest.spyOn(db.dataSource, 'transaction');

    try {
      const receipt = await recorder.record({
        deliveryId: identity.delivery_id,
        before: null,
        event: attemptedEvent({
          ...identity,
          succeeded: true,
          status_code: 200,
          next_attempt_at: null,
        }),
        metadata: { tenant_id: identity.tenant_id },
        payload: payloadOf(identity.tenant_id, identity.event_id),
        conclusion: { endpointId: 'wh_degraded', deliveryId: 'del_r1', conclusion: 'succeeded' },
      });
      expect(receipt).toMatchObject({ committed: true, state: { status: 'succeeded' } });
      expect(transaction).toHaveBeenCalledTimes(1);
    } finally {
      transaction.mockRestore();
    }

    expect(transitions).toEqual([
      { endpointId: 'wh_degraded', tenantId: 'ten_1', from: 'degraded', to: 'active' },
    ]);
    const stream = await readStream(db.dataSource.manager, 'wh_degraded');
    expect(stream.map((event) => event.type)).toEqual([
      'webhook_endpoint.registered',
      'webhook_endpoint.degraded',
      'webhook_endpoint.reactivated',
    ]);
    // The statement that was refused wrote nothing: the delivery is in the log once.
    expect((await readStream(db.dataSource.manager, 'del_r1')).length).toBe(1);
  });
});
