import { EntityManager, QueryDeepPartialEntity, QueryFailedError } from 'typeorm';
import { StoredEvent } from './stored-event.entity';

export interface NewEvent<TData = Record<string, unknown>> {
  type: string;
  data: TData;
  metadata?: Record<string, unknown>;
}

export interface RecordedEvent<TData = Record<string, unknown>> extends NewEvent<TData> {
  position: string;
  streamId: string;
  version: number;
  recordedAt: Date;
}

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
export async function appendToStream(
  manager: EntityManager,
  streamId: string,
  expectedVersion: number,
  events: NewEvent[],
): Promise<RecordedEvent[]> {
  if (events.length === 0) {
    return [];
  }
  const rows = events.map((event, index) => ({
    streamId,
    version: expectedVersion + index + 1,
    type: event.type,
    data: event.data,
    metadata: event.metadata ?? {},
  }));
  try {
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(StoredEvent)
      .values(rows as QueryDeepPartialEntity<StoredEvent>[])
      .returning(['position', 'recordedAt'])
      .execute();
    const inserted = result.raw as { position: string | number; recorded_at: Date }[];
    return rows.map((row, index) => ({
      ...row,
      position: String(inserted[index].position),
      recordedAt: inserted[index].recorded_at,
    }));
  } catch (error) {
    if (isUniqueViolation(error, 'events_stream_version_key')) {
      throw new StreamVersionConflictError(streamId);
    }
    throw error;
  }
}

export interface StreamAppend {
  streamId: string;
  expectedVersion: number;
  events: NewEvent[];
}

/**
 * Appends to many streams in one statement (group commit), with the same optimistic concurrency
 * as appendToStream: any stale expected version fails the whole call with
 * StreamVersionConflictError, leaving the caller to retry the appends one by one.
 * Returns the recorded events in the order given.
 */
export async function appendToStreams(
  manager: EntityManager,
  appends: StreamAppend[],
): Promise<RecordedEvent[]> {
  const rows = appends.flatMap(({ streamId, expectedVersion, events }) =>
    events.map((event, index) => ({
      streamId,
      version: expectedVersion + index + 1,
      type: event.type,
      data: event.data,
      metadata: event.metadata ?? {},
    })),
  );
  if (rows.length === 0) {
    return [];
  }
  let inserted: { position: string; stream_id: string; version: number; recorded_at: Date }[];
  try {
    inserted = await manager.query(
      `INSERT INTO events (stream_id, version, type, data, metadata)
       SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::jsonb[], $5::jsonb[])
       RETURNING position::text, stream_id, version, recorded_at`,
      [
        rows.map((row) => row.streamId),
        rows.map((row) => row.version),
        rows.map((row) => row.type),
        rows.map((row) => JSON.stringify(row.data)),
        rows.map((row) => JSON.stringify(row.metadata)),
      ],
    );
  } catch (error) {
    if (isUniqueViolation(error, 'events_stream_version_key')) {
      throw new StreamVersionConflictError(appends.length === 1 ? appends[0].streamId : '(batch)');
    }
    throw error;
  }
  const byKey = new Map(inserted.map((row) => [`${row.stream_id}\u0000${row.version}`, row]));
  return rows.map((row) => {
    const stored = byKey.get(`${row.streamId}\u0000${row.version}`)!;
    return { ...row, position: stored.position, recordedAt: stored.recorded_at };
  });
}

export async function readStream(
  manager: EntityManager,
  streamId: string,
): Promise<RecordedEvent[]> {
  return manager.find(StoredEvent, { where: { streamId }, order: { version: 'ASC' } });
}

/** Reads the whole log in position order, a page at a time, for projection rebuilds. */
export async function* readAll(
  manager: EntityManager,
  options: { types?: string[]; pageSize?: number } = {},
): AsyncGenerator<RecordedEvent> {
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
    yield* page;
    if (page.length < pageSize) {
      return;
    }
    after = page[page.length - 1].position;
  }
}

/** A unique index refused a row: `constraint` names which. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) {
    return false;
  }
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && driverError.constraint === constraint;
}
