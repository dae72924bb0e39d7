import { retentionKeyColumn } from '@svc/contracts';
import { EntityManager, QueryFailedError } from 'typeorm';
import { StatementParameters } from './statement-parameters';
import { StoredEvent } from './stored-event.entity';

/**
 * What every event of the log is: a type naming the shape of its data. A stream's events are a
 * discriminated union of these (`EndpointEvent`, `DeliveryEvent`): appends and reads are typed by
 * that union, so no caller casts an event's data.
 */
export interface EventShape {
  type: string;
  data: object;
}

/** An event read without knowing its stream's union (tests, tools). */
export interface UntypedEvent extends EventShape {
  data: Record<string, unknown>;
}

/** An event to append, with its metadata (tenant, actor, request). */
export type NewEvent<E extends EventShape = UntypedEvent> = E & {
  metadata?: Record<string, unknown>;
};

/** An event as the log holds it. */
export type RecordedEvent<E extends EventShape = UntypedEvent> = E & {
  metadata: Record<string, unknown>;
  position: string;
  streamId: string;
  version: number;
  recordedAt: Date;
};

/** Another writer appended to the stream first: the caller's view of it is stale. */
export class StreamVersionConflictError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId} was changed concurrently`);
    this.name = 'StreamVersionConflictError';
  }
}

/**
 * Appends events to a stream with optimistic concurrency: `expectedVersion` is the version of
 * the last event the caller saw (0 for a new stream). Must run inside the caller's transaction
 * so that projections are updated atomically with the append.
 */
export function appendToStream<E extends EventShape>(
  manager: EntityManager,
  streamId: string,
  expectedVersion: number,
  events: NewEvent<E>[],
): Promise<RecordedEvent<E>[]> {
  return appendToStreams(manager, [{ streamId, expectedVersion, events }]);
}

export interface StreamAppend<E extends EventShape = UntypedEvent> {
  streamId: string;
  expectedVersion: number;
  events: NewEvent<E>[];
}

/** An event as it is written: its stream, its version there, and what it says. */
export type EventRow<E extends EventShape = UntypedEvent> = E & {
  streamId: string;
  version: number;
  metadata: Record<string, unknown>;
};

/** The rows that appends write, each at the version after the one its writer saw. */
export function eventRowsOf<E extends EventShape>(appends: StreamAppend<E>[]): EventRow<E>[] {
  return appends.flatMap(({ streamId, expectedVersion, events }) =>
    events.map(({ metadata, ...event }, index) => ({
      ...(event as E),
      streamId,
      version: expectedVersion + index + 1,
      metadata: metadata ?? {},
    })),
  );
}

/**
 * The INSERT of event rows, without its RETURNING: alone in appendToStreams, or as a
 * data-modifying CTE of a larger statement. `gate`, when given, is a condition every row waits
 * on (the statement writes all or nothing).
 */
export function insertEventsSql(
  rows: EventRow<EventShape>[],
  parameters: StatementParameters,
  gate = 'true',
): string {
  return `INSERT INTO events (stream_id, version, type, data, metadata, retention_key)
       SELECT * FROM unnest(${parameters.add(rows.map((row) => row.streamId))}::text[],
                            ${parameters.add(rows.map((row) => row.version))}::int[],
                            ${parameters.add(rows.map((row) => row.type))}::text[],
                            ${parameters.add(rows.map((row) => JSON.stringify(row.data)))}::jsonb[],
                            ${parameters.add(rows.map((row) => JSON.stringify(row.metadata)))}::jsonb[],
                            ${
                              // Every event of a stream in one partition: uniqueness there is
                              // uniqueness of the stream.
                              parameters.add(rows.map((row) => retentionKeyColumn(row.streamId)))
                            }::timestamptz[])
       WHERE ${gate}`;
}

/**
 * What a failed append means: a stale expected version (another writer appended first) is a
 * StreamVersionConflictError; anything else is left as it was.
 */
export function asStreamConflict(error: unknown, appends: StreamAppend<EventShape>[]): unknown {
  return isUniqueViolation(error, 'events_stream_version_key')
    ? new StreamVersionConflictError(appends.length === 1 ? appends[0].streamId : '(batch)')
    : error;
}

/**
 * The one append path of the log: appends to one or many streams in one statement (group
 * commit) with optimistic concurrency. Any stale expected version fails the whole call with
 * StreamVersionConflictError, leaving the caller to retry the appends one by one.
 * Returns the recorded events in the order given.
 */
export async function appendToStreams<E extends EventShape>(
  manager: EntityManager,
  appends: StreamAppend<E>[],
): Promise<RecordedEvent<E>[]> {
  const rows = eventRowsOf(appends);
  if (rows.length === 0) {
    return [];
  }
  const parameters = new StatementParameters();
  let inserted: { position: string; stream_id: string; version: number; recorded_at: Date }[];
  try {
    inserted = await manager.query(
      `${insertEventsSql(rows, parameters)}
       RETURNING position::text, stream_id, version, recorded_at`,
      parameters.values,
    );
  } catch (error) {
    throw asStreamConflict(error, appends);
  }
  const byKey = new Map(inserted.map((row) => [`${row.stream_id}\u0000${row.version}`, row]));
  return rows.map((row) => {
    const stored = byKey.get(`${row.streamId}\u0000${row.version}`)!;
    return { ...row, position: stored.position, recordedAt: stored.recorded_at };
  });
}

/**
 * A row of the log as an event of the union its reader expects. The one place the log's rows are
 * trusted to be what their type says: only the typed append path writes them.
 */
function recorded<E extends EventShape>(row: StoredEvent): RecordedEvent<E> {
  return row as RecordedEvent<E>;
}

export async function readStream<E extends EventShape = UntypedEvent>(
  manager: EntityManager,
  streamId: string,
): Promise<RecordedEvent<E>[]> {
  const rows = await manager.find(StoredEvent, { where: { streamId }, order: { version: 'ASC' } });
  return rows.map((row) => recorded<E>(row));
}

/** Reads the whole log in position order, a page at a time, for projection rebuilds. */
export async function* readAll<E extends EventShape = UntypedEvent>(
  manager: EntityManager,
  options: { types?: E['type'][]; pageSize?: number } = {},
): AsyncGenerator<RecordedEvent<E>> {
  const pageSize = options.pageSize ?? 1000;
  let after = '0';
  for (;;) {
    const query = manager
      .createQueryBuilder(StoredEvent, 'event')
      .where('event.position > :after', { after })
      .orderBy('event.position', 'ASC')
      .limit(pageSize);
    if (options.types) {
      query.andWhere('event.type IN (:...types)', { types: options.types });
    }
    const page = await query.getMany();
    yield* page.map((row) => recorded<E>(row));
    if (page.length < pageSize) {
      return;
    }
    after = page[page.length - 1].position;
  }
}

/**
 * A unique index refused a row: `constraint` names which, by the parent table's index name. In a
 * partitioned table the violated index is the partition's, named `<partition>_<the rest of the
 * parent's name>` (libs/database, addPartition).
 */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) {
    return false;
  }
  const driverError = error.driverError as { code?: string; constraint?: string; table?: string };
  if (driverError.code !== '23505' || !driverError.constraint) {
    return false;
  }
  if (driverError.constraint === constraint) {
    return true;
  }
  const partition = driverError.table ?? '';
  const parent = partition.replace(/_(p\d{8}t\d{6}|legacy|kept)$/, '');
  return (
    parent !== partition &&
    constraint.startsWith(`${parent}_`) &&
    driverError.constraint === `${partition}_${constraint.slice(parent.length + 1)}`
  );
}
