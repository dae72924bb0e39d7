import { retentionKeyColumn } from '@svc/contracts';
import { EventRow, RecordedEvent, StatementParameters } from '@svc/event-store';
import { EntityManager } from 'typeorm';
import {
  DELIVERY_EVENT_TYPES,
  DeliveryAttempted,
  DeliveryAttemptedEvent,
  DeliveryEvent,
} from '../delivery-events';
import { applyDeliveryEvent, DeliveryState } from '../delivery-state';
import { projectSchedule, scheduleSql } from './delivery-schedule-projection';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * Upserts delivery rows in one statement. A row already at a later version is left alone: a
 * refold that read the log before a live append never undoes it.
 */
export async function upsertDeliveries(
  manager: EntityManager,
  states: DeliveryState[],
): Promise<void> {
  if (states.length === 0) {
    return;
  }
  const parameters = new StatementParameters();
  await manager.query(upsertDeliveriesSql(states, parameters), parameters.values);
}

/** The statement of upsertDeliveries, alone or as a CTE gated on `gate` (a group commit). */
export function upsertDeliveriesSql(
  states: DeliveryState[],
  parameters: StatementParameters,
  gate = 'true',
): string {
  const column = (pick: (state: DeliveryState) => unknown, type: string) =>
    `${parameters.add(states.map(pick))}::${type}[]`;
  return `INSERT INTO deliveries (id, event_id, endpoint_id, tenant_id, event_type, status, attempts, run_attempts,
                             last_attempt_at, next_attempt_at, created_at, completed_at, version, retention_key,
                             sequence, ordered)
     SELECT * FROM unnest(${column((s) => s.id, 'text')}, ${column((s) => s.eventId, 'text')},
                          ${column((s) => s.endpointId, 'text')}, ${column((s) => s.tenantId, 'text')},
                          ${column((s) => s.eventType, 'text')}, ${column((s) => s.status, 'text')},
                          ${column((s) => s.attempts, 'int')}, ${column((s) => s.runAttempts, 'int')},
                          ${column((s) => iso(s.lastAttemptAt), 'timestamptz')},
                          ${column((s) => iso(s.nextAttemptAt), 'timestamptz')},
                          ${column((s) => iso(s.createdAt), 'timestamptz')},
                          ${column((s) => iso(s.completedAt), 'timestamptz')},
                          ${column((s) => s.version, 'int')},
                          ${column((s) => retentionKeyColumn(s.id), 'timestamptz')},
                          ${column((s) => s.sequence, 'bigint')},
                          ${column((s) => s.ordered, 'boolean')})
     WHERE ${gate}
     ON CONFLICT (id, retention_key) DO UPDATE SET
       status = EXCLUDED.status, attempts = EXCLUDED.attempts, run_attempts = EXCLUDED.run_attempts,
       last_attempt_at = EXCLUDED.last_attempt_at, next_attempt_at = EXCLUDED.next_attempt_at,
       completed_at = EXCLUDED.completed_at, version = EXCLUDED.version
     WHERE deliveries.version <= EXCLUDED.version`;
}

/**
 * Where attempt rows take their log position from: given, or looked up by stream and version in
 * a CTE of the same statement that appended their events (a group commit's `RETURNING`).
 */
export type AttemptPositions =
  { given: string[] } | { appendedCte: string; streamIds: string[]; versions: number[] };

/** Inserts attempt rows; `replace`: a row of the same position is written again (refold). */
export async function insertAttempts(
  manager: EntityManager,
  attempts: { position: string; data: DeliveryAttempted }[],
  replace = false,
): Promise<void> {
  if (attempts.length === 0) {
    return;
  }
  const parameters = new StatementParameters();
  await manager.query(
    insertAttemptsSql(
      attempts.map((a) => a.data),
      { given: attempts.map((a) => a.position) },
      parameters,
      { replace },
    ),
    parameters.values,
  );
}

/** The statement of insertAttempts, alone or as a CTE gated on `gate` (a group commit). */
export function insertAttemptsSql(
  attempts: DeliveryAttempted[],
  positions: AttemptPositions,
  parameters: StatementParameters,
  { replace = false, gate = 'true' }: { replace?: boolean; gate?: string } = {},
): string {
  const column = (pick: (a: DeliveryAttempted) => unknown, type: string) =>
    `${parameters.add(attempts.map(pick))}::${type}[]`;
  const [keys, keyColumns, position] =
    'given' in positions
      ? [`${parameters.add(positions.given)}::bigint[]`, 'position', 'u.position']
      : [
          `${parameters.add(positions.streamIds)}::text[], ${parameters.add(positions.versions)}::int[]`,
          'stream_id, version',
          `(SELECT a.position FROM ${positions.appendedCte} a
             WHERE a.stream_id = u.stream_id AND a.version = u.version)`,
        ];
  return `INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id, attempt, succeeded,
                                    status_code, error_kind, error_message, latency_ms, response_excerpt, attempted_at,
                                    retention_key, sequence)
     SELECT ${position}, u.delivery_id, u.tenant_id, u.endpoint_id, u.event_id, u.attempt, u.succeeded,
            u.status_code, u.error_kind, u.error_message, u.latency_ms, u.response_excerpt, u.attempted_at,
            u.retention_key, u.sequence
     FROM unnest(${keys}, ${column((a) => a.delivery_id, 'text')}, ${column((a) => a.tenant_id, 'text')},
                 ${column((a) => a.endpoint_id, 'text')}, ${column((a) => a.event_id, 'text')},
                 ${column((a) => a.attempt, 'int')}, ${column((a) => a.succeeded, 'boolean')},
                 ${column((a) => a.status_code, 'int')}, ${column((a) => a.error_kind, 'text')},
                 ${column((a) => a.error_message, 'text')}, ${column((a) => a.latency_ms, 'int')},
                 ${column((a) => a.response_excerpt, 'text')}, ${column((a) => a.attempted_at, 'timestamptz')},
                 ${column((a) => retentionKeyColumn(a.delivery_id), 'timestamptz')},
                 ${column((a) => a.sequence ?? null, 'bigint')})
       AS u(${keyColumns}, delivery_id, tenant_id, endpoint_id, event_id, attempt, succeeded, status_code,
            error_kind, error_message, latency_ms, response_excerpt, attempted_at, retention_key, sequence)
     WHERE ${gate}
     ${
       replace
         ? `ON CONFLICT (position, retention_key) DO UPDATE SET
              delivery_id = EXCLUDED.delivery_id, tenant_id = EXCLUDED.tenant_id,
              endpoint_id = EXCLUDED.endpoint_id, event_id = EXCLUDED.event_id,
              attempt = EXCLUDED.attempt, succeeded = EXCLUDED.succeeded,
              status_code = EXCLUDED.status_code, error_kind = EXCLUDED.error_kind,
              error_message = EXCLUDED.error_message, latency_ms = EXCLUDED.latency_ms,
              response_excerpt = EXCLUDED.response_excerpt, attempted_at = EXCLUDED.attempted_at,
              sequence = EXCLUDED.sequence`
         : ''
     }`;
}

export type RecordedDeliveryEvent = RecordedEvent<DeliveryEvent>;

export function fold(
  before: DeliveryState | null,
  events: (DeliveryEvent & { version: number })[],
): DeliveryState | null {
  return events.reduce<DeliveryState | null>(
    (state, event) => applyDeliveryEvent(state, event, event.version),
    before,
  );
}

/** Each stream's state after its events (in version order), from its state in `before`. */
export function foldStreams(
  before: ReadonlyMap<string, DeliveryState>,
  events: EventRow<DeliveryEvent>[],
): Map<string, DeliveryState> {
  const byStream = new Map<string, EventRow<DeliveryEvent>[]>();
  for (const event of events) {
    byStream.set(event.streamId, [...(byStream.get(event.streamId) ?? []), event]);
  }
  const states = new Map<string, DeliveryState>();
  for (const [streamId, streamEvents] of byStream) {
    const state = fold(before.get(streamId) ?? null, streamEvents);
    if (state) {
      states.set(streamId, state);
    }
  }
  return states;
}

/** The attempts among recorded events, as rows of `delivery_attempts`. */
export function attemptsOf(
  events: RecordedDeliveryEvent[],
): { position: string; data: DeliveryAttempted }[] {
  return events.flatMap((event) =>
    event.type === DELIVERY_EVENT_TYPES.attempted
      ? [{ position: event.position, data: event.data }]
      : [],
  );
}

/**
 * A delivery without a `before` state was started by these very events (its stream was empty,
 * or the append would have failed), so no schedule row of it exists yet: the usual case of a
 * first attempt that succeeds needs no DELETE at all.
 */
const mayBeScheduledGiven =
  (before: ReadonlyMap<string, DeliveryState>) => (state: DeliveryState) =>
    before.has(state.id);

/**
 * Brings the delivery projections up to date with events just appended (grouped by stream, in
 * version order), in the transaction of the append. `before` holds each stream's state before
 * them (absent for new deliveries). Returns the new states.
 */
export async function projectDeliveryEvents(
  manager: EntityManager,
  before: ReadonlyMap<string, DeliveryState>,
  appended: RecordedDeliveryEvent[],
): Promise<Map<string, DeliveryState>> {
  const states = foldStreams(before, appended);
  const rows = [...states.values()];
  await upsertDeliveries(manager, rows);
  await insertAttempts(manager, attemptsOf(appended));
  await projectSchedule(manager, rows, mayBeScheduledGiven(before));
  return states;
}

/**
 * projectDeliveryEvents as data-modifying CTEs of the statement that appends the events: the
 * append is the CTE `appendedCte` (RETURNING position, stream_id, version), whose positions the
 * attempt rows take. Every write waits on `gate`. Returns the statements and the new states.
 */
export function deliveryProjectionSql(
  before: ReadonlyMap<string, DeliveryState>,
  events: EventRow<DeliveryEvent>[],
  appendedCte: string,
  parameters: StatementParameters,
  gate: string,
): { states: Map<string, DeliveryState>; statements: string[] } {
  const states = foldStreams(before, events);
  const rows = [...states.values()];
  const statements = rows.length > 0 ? [upsertDeliveriesSql(rows, parameters, gate)] : [];
  const attempts = events.filter(
    (event): event is EventRow<DeliveryAttemptedEvent> =>
      event.type === DELIVERY_EVENT_TYPES.attempted,
  );
  if (attempts.length > 0) {
    statements.push(
      insertAttemptsSql(
        attempts.map((event) => event.data),
        {
          appendedCte,
          streamIds: attempts.map((event) => event.streamId),
          versions: attempts.map((event) => event.version),
        },
        parameters,
        { gate },
      ),
    );
  }
  statements.push(
    ...scheduleSql(rows, mayBeScheduledGiven(before), { parameters, gate }).map(
      (statement) => statement.sql,
    ),
  );
  return { states, statements };
}
