import { DataSource } from 'typeorm';
import { DELIVERY_EVENT_TYPES, DeliveryEvent } from '../delivery-events';
import { DeliveryState } from '../delivery-state';
import {
  attemptsOf,
  fold,
  insertAttempts,
  RecordedDeliveryEvent,
  upsertDeliveries,
} from './delivery-projection';
import { isScheduled } from './delivery-schedule-projection';

export interface RefoldProgress {
  /** Delivery streams folded so far. */
  deliveries: number;
  /** Events read so far. */
  events: number;
  elapsedMs: number;
}

export interface RefoldResult {
  deliveries: number;
  attempts: number;
  scheduled: number;
  /** Projection rows that no event of the retained log stands for (removed). */
  orphansRemoved: number;
}

export interface RefoldOptions {
  /** Events read per page, each page written in a transaction of its own. */
  batchSize?: number;
  onProgress?: (progress: RefoldProgress) => void;
}

interface EventRow {
  position: string;
  stream_id: string;
  version: number;
  type: DeliveryEvent['type'];
  data: DeliveryEvent['data'];
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

const TYPES = Object.values(DELIVERY_EVENT_TYPES);

/**
 * Folds the delivery projections again from the retained log, at any size and while the engines
 * run (ADR 0023): the log is read in pages in (stream, version) order, each page's complete
 * streams are written in a short transaction of their own, and a row a live writer has since
 * moved to a later version is left as it is. Rows that no event stands for (an expired or
 * corrupted remnant) are removed in pages after. Schedule rows are written only for deliveries
 * whose row is at the version folded, and claims in progress are kept.
 */
export async function refoldDeliveryProjections(
  dataSource: DataSource,
  options: RefoldOptions = {},
): Promise<RefoldResult> {
  const batchSize = options.batchSize ?? 5000;
  const started = Date.now();
  const result: RefoldResult = { deliveries: 0, attempts: 0, scheduled: 0, orphansRemoved: 0 };
  let events = 0;
  let after: [string, number] = ['', 0];
  let carried: RecordedDeliveryEvent[] = [];
  for (;;) {
    const page = await dataSource.query<EventRow[]>(
      `SELECT position::text, stream_id, version, type, data, metadata, recorded_at FROM events
        WHERE type = ANY($1) AND (stream_id, version) > ($2, $3)
        ORDER BY stream_id, version LIMIT $4`,
      [TYPES, after[0], after[1], batchSize],
    );
    events += page.length;
    const last = page.length < batchSize;
    const recorded = [
      ...carried,
      ...page.map(
        (row): RecordedDeliveryEvent =>
          ({
            type: row.type,
            data: row.data,
            metadata: row.metadata,
            position: row.position,
            streamId: row.stream_id,
            version: row.version,
            recordedAt: row.recorded_at,
          }) as RecordedDeliveryEvent,
      ),
    ];
    if (page.length > 0) {
      after = [page[page.length - 1].stream_id, page[page.length - 1].version];
    }
    // The page's last stream may go on in the next page: it is folded with the rest of it.
    const lastStream = last ? null : after[0];
    carried = recorded.filter((event) => event.streamId === lastStream);
    const complete = recorded.filter((event) => event.streamId !== lastStream);
    const written = await writeFolded(dataSource, complete);
    result.deliveries += written.deliveries;
    result.attempts += written.attempts;
    result.scheduled += written.scheduled;
    options.onProgress?.({
      deliveries: result.deliveries,
      events,
      elapsedMs: Date.now() - started,
    });
    if (last) {
      break;
    }
  }
  result.orphansRemoved = await removeOrphans(dataSource, batchSize);
  return result;
}

async function writeFolded(
  dataSource: DataSource,
  events: RecordedDeliveryEvent[],
): Promise<{ deliveries: number; attempts: number; scheduled: number }> {
  const byStream = new Map<string, RecordedDeliveryEvent[]>();
  for (const event of events) {
    const stream = byStream.get(event.streamId);
    if (stream) {
      stream.push(event);
    } else {
      byStream.set(event.streamId, [event]);
    }
  }
  const states = [...byStream.values()]
    .map((stream) => fold(null, stream))
    .filter((state): state is DeliveryState => state !== null);
  const attempts = attemptsOf(events);
  const due = states.filter(isScheduled);
  if (states.length === 0) {
    return { deliveries: 0, attempts: 0, scheduled: 0 };
  }
  await dataSource.transaction(async (manager) => {
    await upsertDeliveries(manager, states);
    await insertAttempts(manager, attempts, true);
    if (due.length > 0) {
      await manager.query(
        `INSERT INTO delivery_schedule (delivery_id, tenant_id, endpoint_id, due_at)
         SELECT u.d, u.t, u.e, u.a
           FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::int[]) AS u(d, t, e, a, v)
           JOIN deliveries current ON current.id = u.d AND current.version = u.v
         ON CONFLICT (delivery_id) DO UPDATE SET due_at = EXCLUDED.due_at
          WHERE delivery_schedule.due_at <> EXCLUDED.due_at`,
        [
          due.map((s) => s.id),
          due.map((s) => s.tenantId),
          due.map((s) => s.endpointId),
          due.map((s) => s.nextAttemptAt!.toISOString()),
          due.map((s) => s.version),
        ],
      );
    }
  });
  return { deliveries: states.length, attempts: attempts.length, scheduled: due.length };
}

/** Projection rows the retained log does not stand for, removed a page at a time. */
async function removeOrphans(dataSource: DataSource, batchSize: number): Promise<number> {
  const removed =
    (await removeUnbacked(dataSource, batchSize, {
      table: 'deliveries',
      key: 'id',
      type: 'text',
      start: '',
      backedBy: 'e.stream_id = t.id',
    })) +
    (await removeUnbacked(dataSource, batchSize, {
      table: 'delivery_attempts',
      key: 'position',
      type: 'bigint',
      start: '0',
      backedBy: 'e.position = t.position',
    }));
  // The schedule holds pending deliveries only; it is small, so one statement.
  const [, stale] = await dataSource.query<[unknown, number]>(
    `DELETE FROM delivery_schedule s WHERE NOT EXISTS
       (SELECT 1 FROM deliveries d WHERE d.id = s.delivery_id AND d.status = 'pending')`,
  );
  return removed + stale;
}

/**
 * Walks `table` by its `key` a page at a time (keyset, so each page is an index range) and
 * deletes the rows of the page that no event backs (`backedBy` relates `e`, the log, to `t`).
 */
async function removeUnbacked(
  dataSource: DataSource,
  batchSize: number,
  walk: { table: string; key: string; type: 'text' | 'bigint'; start: string; backedBy: string },
): Promise<number> {
  const { table, key, type, backedBy } = walk;
  let removed = 0;
  let after = walk.start;
  for (;;) {
    const page = await dataSource.query<{ key: string }[]>(
      `SELECT ${key}::text AS key FROM ${table} WHERE ${key} > $1::${type} ORDER BY ${key} LIMIT $2`,
      [after, batchSize],
    );
    if (page.length === 0) {
      return removed;
    }
    after = page[page.length - 1].key;
    const [, count] = await dataSource.query<[unknown, number]>(
      `DELETE FROM ${table} t WHERE t.${key} = ANY($1::${type}[])
          AND NOT EXISTS (SELECT 1 FROM events e WHERE ${backedBy})`,
      [page.map((row) => row.key)],
    );
    removed += count;
  }
}
