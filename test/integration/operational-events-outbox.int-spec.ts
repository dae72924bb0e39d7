import { derivedId, newId } from '@svc/contracts';
import { addPartition, listPartitions, openDataSource } from '@svc/database';
import { DeliveryEvent } from '@svc/deliveries';
import { appendToStream } from '@svc/event-store';
import { attemptedEvent, endpointState, registeredEvent } from '@svc/testing/builders';
import {
  decideDegrade,
  decideReactivate,
  ENDPOINT_EVENT_TYPES,
  EndpointEvent,
} from '@svc/webhook-endpoints';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { DeliveryMetrics } from '../../apps/delivery/src/delivery-metrics';
import { OperationalEvent } from '../../apps/delivery/src/operational-events/operational-event';
import {
  OperationalEventsRelay,
  RelayOptions,
} from '../../apps/delivery/src/operational-events/outbox-relay';
import { sampleValue } from '../support/metric-value';
import { waitFor } from '../support/wait-for';
import { suiteDatabase } from './delivery-tables';

type LogEvent = EndpointEvent | DeliveryEvent;

const RELAY: RelayOptions = {
  intervalMs: 10,
  batchSize: 100,
  firstRetryMs: 60_000,
  maxRetryMs: 60_000,
  backlogSampleMs: 0,
};

/**
 * The transactional outbox of operational events (ADR 0030) against a real PostgreSQL: the
 * trigger on the partitioned log copies exactly the events that raise one, in the writer's
 * transaction; the relay publishes each once JetStream would have acknowledged it, and nothing
 * committed is lost when a relay dies before or after publishing.
 */
describe('the operational events outbox', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let registry: Registry;
  let metrics: DeliveryMetrics;

  beforeAll(async () => {
    db = await suiteDatabase();
    registry = new Registry();
    metrics = new DeliveryMetrics(registry);
  });
  afterAll(() => db.close());
  beforeEach(() => db.dataSource.query('DELETE FROM operational_events_outbox'));

  const relay = (options: Partial<RelayOptions> = {}) =>
    new OperationalEventsRelay({ dataSource: db.dataSource, metrics }, { ...RELAY, ...options });
  const outbox = (): Promise<{ stream_id: string; type: string; failures: number }[]> =>
    db.dataSource.query(
      'SELECT stream_id, type, failures FROM operational_events_outbox ORDER BY position',
    );
  const append = (
    streamId: string,
    version: number,
    events: LogEvent[],
    dataSource: DataSource = db.dataSource,
  ) =>
    dataSource.transaction((manager) =>
      appendToStream<LogEvent>(
        manager,
        streamId,
        version,
        events.map((event) => ({ ...event, metadata: { tenant_id: 'ten_1' } })),
      ),
    );
  /** A live endpoint `wh_…` of ten_1, registered in the log, and its events appended so far. */
  const registered = async (url = 'https://a.example/in') => {
    const id = newId('wh');
    await append(id, 0, [registeredEvent({ endpoint_id: id, url, environment: 'live' })]);
    return { id, state: endpointState({ id, url }) };
  };
  const abandoned = (endpointId: string, overrides: Parameters<typeof attemptedEvent>[0] = {}) =>
    attemptedEvent({
      delivery_id: newId('del'),
      endpoint_id: endpointId,
      attempt: 5,
      next_attempt_at: null,
      abandoned: true,
      ...overrides,
    });
  const collecting = () => {
    const published: OperationalEvent[] = [];
    return {
      published,
      publish: (event: OperationalEvent) => {
        published.push(event);
        return Promise.resolve();
      },
    };
  };

  it('copies only the events that raise an operational event, in the transaction that appends them', async () => {
    const { id, state } = await registered();
    const failed = attemptedEvent({ delivery_id: newId('del'), endpoint_id: id });
    const lost = abandoned(id);
    await append(failed.data.delivery_id, 0, [failed]);
    await append(lost.data.delivery_id, 0, [lost]);
    const [degraded] = decideDegrade({ deliveryId: lost.data.delivery_id }, state, new Date());
    await append(id, 1, [degraded]);
    const [reactivated] = decideReactivate(
      { reason: 'recovered' },
      { ...state, status: 'degraded' },
      new Date(),
    );
    await append(id, 2, [reactivated]);
    // A writer that rolls back raises nothing: only committed facts are told.
    await db.dataSource
      .transaction(async (manager) => {
        await appendToStream<LogEvent>(manager, id, 3, [
          ...decideDegrade({ deliveryId: 'del_x' }, state, new Date()),
        ]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);

    expect(await outbox()).toEqual([
      { stream_id: lost.data.delivery_id, type: 'delivery.attempted', failures: 0 },
      { stream_id: id, type: ENDPOINT_EVENT_TYPES.degraded, failures: 0 },
      { stream_id: id, type: ENDPOINT_EVENT_TYPES.reactivated, failures: 0 },
    ]);
  });

  it('is fired by every partition of the log, those attached after the migration included', async () => {
    const future = new Date(Date.now() + 400 * 24 * 3600_000);
    const to = new Date(future.getTime() + 24 * 3600_000);
    await addPartition(db.dataSource.manager, 'events', 'events_p_outbox_future', {
      from: future,
      to,
    });
    const partitions = await listPartitions(db.dataSource.manager, 'events');
    const withTrigger: { relname: string }[] = await db.dataSource.query(
      `SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE t.tgname = 'events_operational_outbox'`,
    );
    expect(withTrigger.map((row) => row.relname).sort()).toEqual(
      ['events', ...partitions.map((partition) => partition.name)].sort(),
    );

    const { id } = await registered();
    const inTheFuture = abandoned(id, { delivery_id: derivedId('del', future, [id]) });
    await append(inTheFuture.data.delivery_id, 0, [inTheFuture]);
    const [{ partition }]: { partition: string }[] = await db.dataSource.query(
      `SELECT tableoid::regclass::text AS partition FROM events WHERE stream_id = $1`,
      [inTheFuture.data.delivery_id],
    );
    expect(partition).toBe('events_p_outbox_future');
    expect((await outbox()).map((row) => row.stream_id)).toEqual([inTheFuture.data.delivery_id]);
  });

  it('publishes in the order of the log, with the documented envelope, and empties the outbox', async () => {
    const { id, state } = await registered('https://hooks.example.com/svc');
    const lost = abandoned(id);
    await db.dataSource.transaction(async (manager) => {
      await appendToStream<LogEvent>(manager, lost.data.delivery_id, 0, [lost]);
      await appendToStream<LogEvent>(
        manager,
        id,
        1,
        decideDegrade({ deliveryId: lost.data.delivery_id }, state, new Date()),
      );
    });
    const sink = collecting();
    const publishedBefore = await published('webhook.delivery.abandoned');

    const turn = await relay().relayOnce(sink.publish);

    expect(turn).toEqual({ claimed: 2, published: 2, skipped: 0, failed: false });
    expect(sink.published.map((event) => event.type)).toEqual([
      'webhook.delivery.abandoned',
      'webhook.endpoint.degraded',
    ]);
    expect(sink.published[0]).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      type: 'webhook.delivery.abandoned',
      created_at: expect.stringMatching(/Z$/),
      tenant_id: 'ten_1',
      data: {
        endpoint_id: id,
        url: 'https://hooks.example.com/svc',
        environment: 'live',
        reason: 'attempts_exhausted',
        delivery_id: lost.data.delivery_id,
        event_id: 'evt_1',
        event_type: 'alert.created',
        attempts: 5,
        status_code: 500,
        error_kind: 'http_status',
        at: lost.data.attempted_at,
      },
    });
    expect(await outbox()).toEqual([]);
    expect(await published('webhook.delivery.abandoned')).toBe(publishedBefore + 1);
  });

  it('loses nothing when a relay dies after publishing and before deleting: the next publishes it again, under the same id', async () => {
    const { id } = await registered();
    const lost = abandoned(id);
    await append(lost.data.delivery_id, 0, [lost]);
    const doomed = await openDataSource({ url: db.url, poolSize: 1 });
    const seen: OperationalEvent[] = [];
    // JetStream has the event, then the process dies: its connection goes, with the transaction
    // that held the claim and was about to delete the row.
    const dying = new OperationalEventsRelay({ dataSource: doomed, metrics }, RELAY).relayOnce(
      async (event) => {
        seen.push(event);
        await db.dataSource.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND state = 'idle in transaction'`,
        );
      },
    );
    await expect(dying).rejects.toThrow();
    await doomed.destroy().catch(() => undefined);
    expect(await outbox()).toEqual([
      { stream_id: lost.data.delivery_id, type: 'delivery.attempted', failures: 0 },
    ]);

    const sink = collecting();
    await relay().relayOnce(sink.publish);

    expect(sink.published).toHaveLength(1);
    expect(JSON.stringify(sink.published[0])).toBe(JSON.stringify(seen[0]));
    expect(await outbox()).toEqual([]);
  });

  it('loses nothing when no relay runs between the commit and the publish (an engine killed): the next engine publishes it', async () => {
    const { id, state } = await registered();
    const [degraded] = decideDegrade({ deliveryId: newId('del') }, state, new Date());
    await append(id, 1, [degraded]);
    expect(await outbox()).toHaveLength(1);

    const sink = collecting();
    const running = relay();
    running.start(sink.publish);
    await waitFor(() => Promise.resolve(sink.published.length === 1), { what: 'the publish' });
    await running.stop();

    expect(sink.published[0]).toMatchObject({ type: 'webhook.endpoint.degraded' });
    expect(await outbox()).toEqual([]);
  });

  it('keeps a row whose publish failed, waits before the next try, and publishes it then', async () => {
    const { id, state } = await registered();
    await append(id, 1, decideDegrade({ deliveryId: newId('del') }, state, new Date()));
    await append(id, 2, [
      ...decideReactivate({ reason: 'recovered' }, { ...state, status: 'degraded' }, new Date()),
    ]);

    const failing = await relay().relayOnce(() => Promise.reject(new Error('NATS is away')));

    expect(failing).toEqual({ claimed: 2, published: 0, skipped: 0, failed: true });
    expect(await outbox()).toEqual([
      { stream_id: id, type: ENDPOINT_EVENT_TYPES.degraded, failures: 1 },
      // The rest of the batch is left alone: it is tried at the next turn.
      { stream_id: id, type: ENDPOINT_EVENT_TYPES.reactivated, failures: 0 },
    ]);
    const sink = collecting();
    await relay().relayOnce(sink.publish);
    // The failed row waits (60 s here); the other goes.
    expect(sink.published.map((event) => event.type)).toEqual(['webhook.endpoint.reactivated']);
    await db.dataSource.query('UPDATE operational_events_outbox SET publish_after = now()');
    await relay().relayOnce(sink.publish);
    expect(sink.published.map((event) => event.type)).toEqual([
      'webhook.endpoint.reactivated',
      'webhook.endpoint.degraded',
    ]);
  });

  it('tells whether a row is due before it claims any: none, one waiting for its retry, one due', async () => {
    const probe = relay();
    expect(await probe.hasDueRows()).toBe(false);
    const { id, state } = await registered();
    await append(id, 1, decideDegrade({ deliveryId: newId('del') }, state, new Date()));
    expect(await probe.hasDueRows()).toBe(true);
    await db.dataSource.query(
      "UPDATE operational_events_outbox SET publish_after = now() + interval '1 minute'",
    );
    expect(await probe.hasDueRows()).toBe(false);
  });

  it('shares the outbox between relays: each row is published once, by one of them', async () => {
    const { id } = await registered();
    for (let index = 0; index < 30; index += 1) {
      const lost = abandoned(id, { event_id: `evt_${index}` });
      await append(lost.data.delivery_id, 0, [lost]);
    }
    const ids: string[] = [];
    const slowly = async (event: OperationalEvent) => {
      ids.push(event.id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const relays = [relay({ batchSize: 4 }), relay({ batchSize: 4 }), relay({ batchSize: 4 })];
    relays.forEach((each) => each.start(slowly));
    await waitFor(async () => (await outbox()).length === 0, { what: 'an empty outbox' });
    await Promise.all(relays.map((each) => each.stop()));

    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
  });

  it('raises nothing for an abandoned delivery of an operational event (the loop guard), and drops its row', async () => {
    const { id } = await registered();
    const lost = abandoned(id, { event_type: 'webhook.delivery.abandoned' });
    await append(lost.data.delivery_id, 0, [lost]);
    const sink = collecting();

    expect(await relay().relayOnce(sink.publish)).toMatchObject({ claimed: 1, skipped: 1 });
    expect(sink.published).toEqual([]);
    expect(await outbox()).toEqual([]);
  });

  it('tells of an endpoint deleted before the relay came, as it was', async () => {
    const { id, state } = await registered('https://gone.example/in');
    const lost = abandoned(id);
    await append(lost.data.delivery_id, 0, [lost]);
    await append(id, 1, [
      {
        type: ENDPOINT_EVENT_TYPES.deleted,
        data: { endpoint_id: state.id, deleted_at: new Date().toISOString() },
      },
    ]);
    const sink = collecting();
    await relay().relayOnce(sink.publish);
    expect(sink.published[0].data).toMatchObject({ url: 'https://gone.example/in' });
  });

  it('samples the backlog for its gauge', async () => {
    const { id, state } = await registered();
    await append(id, 1, decideDegrade({ deliveryId: newId('del') }, state, new Date()));
    const sampling = relay();
    sampling.start(() => Promise.reject(new Error('NATS is away')));
    await waitFor(
      async () =>
        sampleValue(await registry.metrics(), 'svc_delivery_operational_outbox_backlog') === 1,
      { what: 'the backlog sample' },
    );
    await sampling.stop();
  });

  async function published(type: string): Promise<number> {
    return sampleValue(
      await registry.metrics(),
      'svc_delivery_operational_events_published_total',
      `type="${type}"`,
    );
  }
});
