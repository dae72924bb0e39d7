import { newId } from '@svc/contracts';
import { openDataSource } from '@svc/database';
import {
  decideAttempted,
  decideRedriven,
  DeliveryEvent,
  DeliveryRecord,
  DeliveryState,
  projectDeliveryEvents,
  resultOfStatus,
} from '@svc/deliveries';
import { appendToStream, appendToStreams } from '@svc/event-store';
import { DataSource } from 'typeorm';
import { ulid } from 'ulid';
import { http, RunningApi, startApi } from '../support';
import { waitFor } from '../support/wait-for';

const SINCE = new Date('2026-01-01T00:00:00.000Z');

/**
 * `POST /v1/webhooks/{id}/recover` re-drives in batches of 100, each its own transaction, at most
 * a cap per call, skipping what another writer holds or changed (ADR 0022).
 */
describe('recover: re-drives abandoned deliveries in batches, up to a cap per call', () => {
  let api: RunningApi;
  let capped: RunningApi;

  beforeAll(async () => {
    [api, capped] = await Promise.all([
      startApi(),
      startApi({ WEBHOOK_RECOVER_REDRIVE_LIMIT: '150' }),
    ]);
  });
  afterAll(() => Promise.all([api?.close(), capped?.close()]));

  async function newEndpoint(on: RunningApi) {
    const { tenantId, key } = await on.newTenantWithKey(['webhooks:manage']);
    const response = await http(on.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/in',
        events: ['alert.*'],
        secret: 'correct-horse-battery-staple',
      },
    });
    expect(response.status).toBe(201);
    return { tenantId, key, endpointId: response.body.id as string };
  }

  /**
   * `count` deliveries to the endpoint, each abandoned by its one failed attempt (at most one
   * attempt), appended and projected in one transaction as the engine's recorder does. Seven
   * share each completion time, so the cursor's id tie-break is crossed at batch boundaries.
   */
  async function abandon(
    on: RunningApi,
    endpoint: { tenantId: string; endpointId: string },
    count: number,
    from = SINCE,
  ): Promise<DeliveryState[]> {
    const events = Array.from({ length: count }, (_, index) => {
      const at = new Date(from.getTime() + Math.floor(index / 7) * 1000);
      const identity = {
        // Made when it was attempted, as the engine makes its ids (and so its retention key).
        delivery_id: `del_${ulid(at.getTime() - 500).toLowerCase()}`,
        event_id: newId('evt'),
        endpoint_id: endpoint.endpointId,
        tenant_id: endpoint.tenantId,
        event_type: 'alert.created',
      };
      return decideAttempted(
        {
          identity,
          result: resultOfStatus(500, 12, 'down'),
          policy: { retryScheduleMs: [], maxAttempts: 1 },
        },
        null,
        at,
      ).event;
    });
    const states = await on.dataSource.transaction(async (manager) => {
      const appended = await appendToStreams<DeliveryEvent>(
        manager,
        events.map((event) => ({
          streamId: event.data.delivery_id,
          expectedVersion: 0,
          events: [event],
        })),
      );
      return projectDeliveryEvents(manager, new Map(), appended);
    });
    const abandoned = [...states.values()];
    expect(abandoned.every((state) => state.status === 'abandoned')).toBe(true);
    return abandoned;
  }

  const recover = (on: RunningApi, key: string, endpointId: string, since = SINCE) =>
    http(on.baseUrl, 'POST', `/v1/webhooks/${endpointId}/recover`, {
      key,
      json: { redrive_abandoned_since: since.toISOString() },
    });

  /** The `delivery.redriven` events of these deliveries: per delivery, and their transactions. */
  async function redrivenEvents(on: RunningApi, ids: string[]) {
    const rows: { stream_id: string; tx: string }[] = await on.dataSource.query(
      `SELECT stream_id, xmin::text AS tx FROM events
        WHERE type = 'delivery.redriven' AND stream_id = ANY($1)`,
      [ids],
    );
    const perDelivery = new Map<string, number>();
    for (const row of rows) {
      perDelivery.set(row.stream_id, (perDelivery.get(row.stream_id) ?? 0) + 1);
    }
    return { perDelivery, transactions: new Set(rows.map((row) => row.tx)).size };
  }

  async function statuses(on: RunningApi, ids: string[]): Promise<Record<string, number>> {
    const rows: { status: string; n: number }[] = await on.dataSource.query(
      'SELECT status, count(*)::int AS n FROM deliveries WHERE id = ANY($1) GROUP BY status',
      [ids],
    );
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }

  it('re-drives 250 abandoned deliveries in three transactions, each exactly once', async () => {
    const endpoint = await newEndpoint(api);
    const deliveries = await abandon(api, endpoint, 250);
    // Not in scope: abandoned before the time given, and another endpoint's of the same tenant.
    const [older] = await abandon(api, endpoint, 1, new Date(SINCE.getTime() - 1));
    const other = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key: endpoint.key,
      json: { url: 'https://other.example.com/in', events: ['alert.*'], secret: 'x'.repeat(16) },
    });
    const [elsewhere] = await abandon(api, { ...endpoint, endpointId: other.body.id }, 1);
    const ids = deliveries.map((delivery) => delivery.id);

    const response = await recover(api, endpoint.key, endpoint.endpointId);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      endpoint: expect.objectContaining({ id: endpoint.endpointId, status: 'active' }),
      redriven_deliveries: 250,
      more_to_redrive: false,
    });

    const { perDelivery, transactions } = await redrivenEvents(api, ids);
    expect(perDelivery.size).toBe(250);
    expect([...perDelivery.values()].every((n) => n === 1)).toBe(true);
    expect(transactions).toBe(3);
    expect(await statuses(api, ids)).toEqual({ pending: 250 });
    const [scheduled] = await api.dataSource.query(
      'SELECT count(*)::int AS n FROM delivery_schedule WHERE delivery_id = ANY($1)',
      [ids],
    );
    expect(scheduled.n).toBe(250);
    expect(await statuses(api, [older.id, elsewhere.id])).toEqual({ abandoned: 2 });

    const again = await recover(api, endpoint.key, endpoint.endpointId);
    expect(again.body).toMatchObject({ redriven_deliveries: 0, more_to_redrive: false });
  });

  it('stops at the cap, says more are left, and the next call re-drives the rest', async () => {
    const endpoint = await newEndpoint(capped);
    const deliveries = await abandon(capped, endpoint, 250);
    const ids = deliveries.map((delivery) => delivery.id);
    const oldestFirst = [...deliveries].sort(
      (a, b) =>
        a.completedAt!.getTime() - b.completedAt!.getTime() ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );

    const first = await recover(capped, endpoint.key, endpoint.endpointId);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ redriven_deliveries: 150, more_to_redrive: true });
    const afterFirst = await redrivenEvents(capped, ids);
    expect(afterFirst.transactions).toBe(2);
    expect(new Set(afterFirst.perDelivery.keys())).toEqual(
      new Set(oldestFirst.slice(0, 150).map((delivery) => delivery.id)),
    );

    const second = await recover(capped, endpoint.key, endpoint.endpointId);
    expect(second.body).toMatchObject({ redriven_deliveries: 100, more_to_redrive: false });
    const third = await recover(capped, endpoint.key, endpoint.endpointId);
    expect(third.body).toMatchObject({ redriven_deliveries: 0, more_to_redrive: false });

    const { perDelivery } = await redrivenEvents(capped, ids);
    expect(perDelivery.size).toBe(250);
    expect([...perDelivery.values()].every((n) => n === 1)).toBe(true);
    expect(await statuses(capped, ids)).toEqual({ pending: 250 });
  });

  it('says nothing is left when the cap is met exactly', async () => {
    const endpoint = await newEndpoint(capped);
    await abandon(capped, endpoint, 150);
    const response = await recover(capped, endpoint.key, endpoint.endpointId);
    expect(response.body).toMatchObject({ redriven_deliveries: 150, more_to_redrive: false });
  });

  it('skips a delivery whose stream moved past its row, and re-drives the rest', async () => {
    const endpoint = await newEndpoint(api);
    const deliveries = await abandon(api, endpoint, 5);
    const moved = deliveries[2];
    // Another writer's event the row does not show: the batch's append meets a stale version.
    await api.dataSource.transaction((manager) =>
      appendToStream<DeliveryEvent>(
        manager,
        moved.id,
        moved.version,
        decideRedriven({ abandonedSince: SINCE }, moved, new Date()),
      ),
    );

    const response = await recover(api, endpoint.key, endpoint.endpointId);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ redriven_deliveries: 4, more_to_redrive: false });
    const { perDelivery } = await redrivenEvents(api, [moved.id]);
    expect(perDelivery.get(moved.id)).toBe(1);
    const versions = await api.dataSource.query(
      'SELECT version FROM events WHERE stream_id = $1 ORDER BY version',
      [moved.id],
    );
    expect(versions).toEqual([{ version: 1 }, { version: 2 }]);
    const rest = deliveries.filter((delivery) => delivery !== moved).map((d) => d.id);
    expect(await statuses(api, rest)).toEqual({ pending: 4 });
  });

  it('gives way to a writer appending to a delivery at the same time, re-driving the rest', async () => {
    const endpoint = await newEndpoint(api);
    const deliveries = await abandon(api, endpoint, 3);
    const contested = deliveries[0];
    const writer: DataSource = await openDataSource({
      url: api.config.database.url,
      poolSize: 2,
    });
    const runner = writer.createQueryRunner();
    try {
      // An engine's transaction: it has appended to the delivery's stream and not yet projected.
      await runner.connect();
      await runner.startTransaction();
      const appended = await appendToStream<DeliveryEvent>(
        runner.manager,
        contested.id,
        contested.version,
        decideRedriven({ abandonedSince: SINCE }, contested, new Date()),
      );
      const answer = recover(api, endpoint.key, endpoint.endpointId);
      // The batch holds the delivery's row and waits for the writer's version of its stream...
      await waitFor(
        async () =>
          (
            await writer.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event = 'transactionid'`,
            )
          )[0].n > 0,
        { what: 'the batch to wait for the writer' },
      );
      // ...and the writer's projection waits for that row: PostgreSQL fails the batch.
      await projectDeliveryEvents(runner.manager, new Map([[contested.id, contested]]), appended);
      await runner.commitTransaction();

      const response = await answer;
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ redriven_deliveries: 2, more_to_redrive: false });
      const { perDelivery } = await redrivenEvents(
        api,
        deliveries.map((delivery) => delivery.id),
      );
      expect([...perDelivery.values()]).toEqual([1, 1, 1]);
      const row = await api.dataSource
        .getRepository(DeliveryRecord)
        .findOneByOrFail({ id: contested.id });
      expect(row).toMatchObject({ status: 'pending', version: 2 });
    } finally {
      if (runner.isTransactionActive) {
        await runner.rollbackTransaction();
      }
      await runner.release();
      await writer.destroy();
    }
  });
});
