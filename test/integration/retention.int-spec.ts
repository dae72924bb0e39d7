import {
  AttemptPolicy,
  decideAttempted,
  DeliveryState,
  refoldDeliveryProjections,
  resultOfStatus,
} from '@svc/deliveries';
import { maintainPartitions, MIGRATIONS, MIGRATIONS_TABLE, RetentionSettings } from '@svc/database';
import { appendToStream, readStream, StreamVersionConflictError } from '@svc/event-store';
import { deliveryIdentity } from '@svc/testing/builders';
import { Client } from 'pg';
import { ulid } from 'ulid';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../support';
import { payloadOf, recordDelivery, suiteDatabase } from './delivery-tables';

const DAY = 24 * 3600_000;
const policy: AttemptPolicy = { retryScheduleMs: [5000], maxAttempts: 2 };
const daily: RetentionSettings = { retentionMs: DAY, partitionWidthMs: DAY };
const startOfToday = new Date(Math.floor(Date.now() / DAY) * DAY);
const at = (days: number, hours = 0) =>
  new Date(startOfToday.getTime() + days * DAY + hours * 3600_000);
/** An id of delivery data created at `time`: its rows go to that time's partition. */
const idAt = (prefix: 'del' | 'rej', time: Date) =>
  `${prefix}_${ulid(time.getTime()).toLowerCase()}`;

/**
 * Retention by time partitions against a real PostgreSQL (ADR 0023): partitions made ahead,
 * expired delivery data dropped whole with its stored bodies and schedule rows, history kept,
 * the log append-only in every partition, optimistic concurrency within a partition, one
 * maintainer at a time, and projections rebuilt after expiry equal to the live ones.
 */
describe('bounded storage: delivery data in time partitions', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;

  beforeEach(async () => {
    db = await suiteDatabase();
    // The suite's clock runs days ahead of the template's partitions.
    await maintainPartitions(db.dataSource, { ...daily, retentionMs: 30 * DAY }, at(0), {
      drop: false,
    });
  });
  afterEach(() => db.close());

  async function deliveryAt(time: Date, eventId: string, failures = 1): Promise<DeliveryState> {
    const identity = deliveryIdentity({ delivery_id: idAt('del', time), event_id: eventId });
    let state: DeliveryState | null = null;
    for (let i = 0; i < failures; i += 1) {
      const result = resultOfStatus(500, 5, 'no');
      const { event } = decideAttempted({ identity, result, policy }, state, time);
      state = await recordDelivery(
        db.dataSource,
        state,
        [event],
        i === 0 ? { ...payloadOf(identity.tenant_id, eventId), retentionKey: time } : undefined,
      );
    }
    return state!;
  }

  /** The partition that holds a delivery's rows in `table`. */
  const partitionOf = async (table: string, deliveryId: string) => {
    const column = table === 'events' ? 'stream_id' : table === 'deliveries' ? 'id' : 'delivery_id';
    const [row] = await db.dataSource.query<{ partition: string }[]>(
      `SELECT tableoid::regclass::text AS partition FROM ${table} WHERE ${column} = $1 LIMIT 1`,
      [deliveryId],
    );
    return row.partition;
  };

  const count = async (sql: string, parameters: unknown[] = []) =>
    Number((await db.dataSource.query<{ n: string }[]>(sql, parameters))[0].n);

  it('drops expired delivery data by whole partitions, with bodies and schedule rows, and keeps history', async () => {
    const old = await deliveryAt(at(0, 1), 'evt_old');
    const recent = await deliveryAt(at(1, 1), 'evt_recent');
    const endpointStream = `wh_${ulid().toLowerCase()}`;
    await db.dataSource.transaction((manager) =>
      appendToStream(manager, endpointStream, 0, [
        { type: 'webhook_endpoint.registered', data: {} },
      ]),
    );
    expect(await count('SELECT count(*) AS n FROM delivery_schedule')).toBe(2);
    const holding = await Promise.all(
      ['events', 'deliveries', 'delivery_attempts'].map((table) => partitionOf(table, old.id)),
    );

    const report = await maintainPartitions(db.dataSource, daily, at(2, 1));

    expect(report.ran).toBe(true);
    expect(report.dropped).toEqual(expect.arrayContaining([...holding, 'events_legacy']));
    expect(await readStream(db.dataSource.manager, old.id)).toEqual([]);
    expect(await readStream(db.dataSource.manager, recent.id)).toHaveLength(1);
    expect(await readStream(db.dataSource.manager, endpointStream)).toHaveLength(1);
    expect(await count('SELECT count(*) AS n FROM deliveries')).toBe(1);
    expect(await count('SELECT count(*) AS n FROM delivery_attempts')).toBe(1);
    expect(await count('SELECT count(*) AS n FROM delivery_schedule')).toBe(1);
    // A body outlives its deliveries by one partition: the old one is still there, not for long.
    expect(await count(`SELECT count(*) AS n FROM inbound_events WHERE event_id = 'evt_old'`)).toBe(
      1,
    );
    await maintainPartitions(db.dataSource, daily, at(3, 1));
    expect(await count(`SELECT count(*) AS n FROM inbound_events WHERE event_id = 'evt_old'`)).toBe(
      0,
    );
    expect(report.oldestRetained).toEqual(at(1));
  });

  it('makes the partitions ahead, and a second turn changes nothing', async () => {
    // Partitions exist to day 4 (made at day 0, three ahead); at day 5, with a day's retention,
    // day 4 onwards is needed: the gap (day 4), today (5) and three ahead (6 to 8).
    const first = await maintainPartitions(db.dataSource, daily, at(5));
    expect(first.created.filter((name) => name.startsWith('events_'))).toHaveLength(5);
    const again = await maintainPartitions(db.dataSource, daily, at(5));
    expect(again).toMatchObject({ ran: true, created: [], dropped: [] });
  });

  it('keeps the log append-only in every partition; only dropping a whole one removes rows', async () => {
    const delivery = await deliveryAt(at(1, 2), 'evt_ao');
    const partition = await partitionOf('events', delivery.id);
    expect(partition).toMatch(/^events_p\d{8}t\d{6}$/);
    await expect(db.dataSource.query(`DELETE FROM ${partition}`)).rejects.toThrow(/append-only/);
    await expect(db.dataSource.query(`UPDATE ${partition} SET type = 'x'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(db.dataSource.query(`TRUNCATE ${partition}`)).rejects.toThrow(/append-only/);
    await expect(
      db.dataSource.query(`DELETE FROM events WHERE stream_id = $1`, [delivery.id]),
    ).rejects.toThrow(/append-only/);
    expect(await readStream(db.dataSource.manager, delivery.id)).toHaveLength(1);
  });

  it('refuses a stale append to a stream in a time partition (optimistic concurrency)', async () => {
    const stream = idAt('del', at(0, 3));
    const append = (by: string) =>
      db.dataSource.transaction((manager) =>
        appendToStream(manager, stream, 0, [{ type: 'delivery.deferred', data: { by } }]),
      );
    await append('first');
    await expect(append('second')).rejects.toBeInstanceOf(StreamVersionConflictError);
  });

  it('lets one process maintain at a time: the others skip their turn', async () => {
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(7301457002)');
      expect(await maintainPartitions(db.dataSource, daily, at(0))).toMatchObject({ ran: false });
    } finally {
      await holder.end();
    }
    expect(await maintainPartitions(db.dataSource, daily, at(0))).toMatchObject({ ran: true });
  });

  it('rebuilds projections after expiry equal to the live ones', async () => {
    await deliveryAt(at(0, 1), 'evt_gone', 2);
    await deliveryAt(at(1, 1), 'evt_kept_1', 2);
    await deliveryAt(at(1, 2), 'evt_kept_2', 1);
    await maintainPartitions(db.dataSource, daily, at(2, 1));
    const snapshot = async () => ({
      deliveries: await db.dataSource.query('SELECT * FROM deliveries ORDER BY id'),
      attempts: await db.dataSource.query('SELECT * FROM delivery_attempts ORDER BY position'),
      schedule: await db.dataSource.query('SELECT * FROM delivery_schedule ORDER BY delivery_id'),
    });
    const live = await snapshot();
    expect(live.deliveries).toHaveLength(2);

    // Dropped, then replayed from the log (in pages of three events).
    await db.dataSource.query('TRUNCATE deliveries, delivery_attempts, delivery_schedule');
    const counts = await refoldDeliveryProjections(db.dataSource, { batchSize: 3 });

    expect(counts).toEqual({ deliveries: 2, attempts: 3, scheduled: 1, orphansRemoved: 0 });
    expect(await snapshot()).toEqual(live);
  });
});

describe('the migration to partitioned tables', () => {
  it('copies existing rows: history into the kept partition, delivery data into legacy, positions kept', async () => {
    const database = await createTestDatabase({ empty: true });
    const options = {
      type: 'postgres' as const,
      url: database.url,
      migrationsTableName: MIGRATIONS_TABLE,
    };
    const before = await new DataSource({
      ...options,
      // Every migration before the one to partitioned tables.
      migrations: MIGRATIONS.slice(
        0,
        MIGRATIONS.findIndex(
          (migration) => migration.name === 'DeliveryDataPartitions1763860000000',
        ),
      ),
    }).initialize();
    const deliveryId = idAt('del', new Date(Date.now() - DAY));
    try {
      await before.runMigrations({ transaction: 'each' });
      await before.query(
        `INSERT INTO events (stream_id, version, type, data) VALUES
           ('wh_01aaaaaaaaaaaaaaaaaaaaaaaa', 1, 'webhook_endpoint.registered', '{}'),
           ($1, 1, 'delivery.attempted', '{}'), ($1, 2, 'delivery.attempted', '{}')`,
        [deliveryId],
      );
      await before.query(
        `INSERT INTO deliveries (id, event_id, endpoint_id, tenant_id, event_type, status, attempts,
                                 run_attempts, created_at, version)
         VALUES ($1, 'evt_1', 'wh_1', 'ten_1', 'alert.created', 'succeeded', 2, 2, now(), 2)`,
        [deliveryId],
      );
      await before.query(
        `INSERT INTO inbound_events (tenant_id, event_id, type, body) VALUES ('ten_1', 'evt_1', 'alert.created', '{}')`,
      );
    } finally {
      await before.destroy();
    }
    const after = await new DataSource({ ...options, migrations: MIGRATIONS }).initialize();
    try {
      await after.runMigrations({ transaction: 'each' });
      const rows = await after.query<{ partition: string; stream_id: string; position: string }[]>(
        'SELECT tableoid::regclass::text AS partition, stream_id, position::text FROM events ORDER BY position',
      );
      expect(rows).toEqual([
        { partition: 'events_kept', stream_id: 'wh_01aaaaaaaaaaaaaaaaaaaaaaaa', position: '1' },
        { partition: 'events_legacy', stream_id: deliveryId, position: '2' },
        { partition: 'events_legacy', stream_id: deliveryId, position: '3' },
      ]);
      const [{ partition }] = await after.query<{ partition: string }[]>(
        'SELECT tableoid::regclass::text AS partition FROM deliveries',
      );
      expect(partition).toBe('deliveries_legacy');
      // The identity goes on after the copied positions.
      await after.transaction((manager) =>
        appendToStream(manager, 'wh_01bbbbbbbbbbbbbbbbbbbbbbbb', 0, [{ type: 'x', data: {} }]),
      );
      const [{ max }] = await after.query<{ max: string }[]>(
        'SELECT max(position)::text AS max FROM events',
      );
      expect(max).toBe('4');
    } finally {
      await after.destroy();
      await database.drop();
    }
  });
});
