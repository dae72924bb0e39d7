import { retentionKeyColumn } from '@svc/contracts';
import { RecordedEvent } from '@svc/event-store';
import { EntityManager } from 'typeorm';
import { DELIVERY_EVENT_TYPES, DeliveryAttempted, DeliveryEvent } from '../delivery-events';
import { applyDeliveryEvent, DeliveryState } from '../delivery-state';
import { projectSchedule } from './delivery-schedule-projection';

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
  await manager.query(
    `INSERT INTO deliveries (id, event_id, endpoint_id, tenant_id, event_type, status, attempts, run_attempts,
                             last_attempt_at, next_attempt_at, created_at, completed_at, version, retention_key)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
                          $8::int[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], $13::int[],
                          $14::timestamptz[])
     ON CONFLICT (id, retention_key) DO UPDATE SET
       status = EXCLUDED.status, attempts = EXCLUDED.attempts, run_attempts = EXCLUDED.run_attempts,
       last_attempt_at = EXCLUDED.last_attempt_at, next_attempt_at = EXCLUDED.next_attempt_at,
       completed_at = EXCLUDED.completed_at, version = EXCLUDED.version
     WHERE deliveries.version <= EXCLUDED.version`,
    [
      states.map((s) => s.id),
      states.map((s) => s.eventId),
      states.map((s) => s.endpointId),
      states.map((s) => s.tenantId),
      states.map((s) => s.eventType),
      states.map((s) => s.status),
      states.map((s) => s.attempts),
      states.map((s) => s.runAttempts),
      states.map((s) => iso(s.lastAttemptAt)),
      states.map((s) => iso(s.nextAttemptAt)),
      states.map((s) => iso(s.createdAt)),
      states.map((s) => iso(s.completedAt)),
      states.map((s) => s.version),
      states.map((s) => retentionKeyColumn(s.id)),
    ],
  );
}

/** Inserts attempt rows; `replace`: a row of the same position is written again (refold). */
export async function insertAttempts(
  manager: EntityManager,
  attempts: { position: string; data: DeliveryAttempted }[],
  replace = false,
): Promise<void> {
  if (attempts.length === 0) {
    return;
  }
  const column = <T>(pick: (a: DeliveryAttempted) => T) => attempts.map(({ data }) => pick(data));
  await manager.query(
    `INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id, attempt, succeeded,
                                    status_code, error_kind, error_message, latency_ms, response_excerpt, attempted_at,
                                    retention_key)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::boolean[],
                          $8::int[], $9::text[], $10::text[], $11::int[], $12::text[], $13::timestamptz[],
                          $14::timestamptz[])
     ${
       replace
         ? `ON CONFLICT (position, retention_key) DO UPDATE SET
              delivery_id = EXCLUDED.delivery_id, tenant_id = EXCLUDED.tenant_id,
              endpoint_id = EXCLUDED.endpoint_id, event_id = EXCLUDED.event_id,
              attempt = EXCLUDED.attempt, succeeded = EXCLUDED.succeeded,
              status_code = EXCLUDED.status_code, error_kind = EXCLUDED.error_kind,
              error_message = EXCLUDED.error_message, latency_ms = EXCLUDED.latency_ms,
              response_excerpt = EXCLUDED.response_excerpt, attempted_at = EXCLUDED.attempted_at`
         : ''
     }`,
    [
      attempts.map((a) => a.position),
      column((a) => a.delivery_id),
      column((a) => a.tenant_id),
      column((a) => a.endpoint_id),
      column((a) => a.event_id),
      column((a) => a.attempt),
      column((a) => a.succeeded),
      column((a) => a.status_code),
      column((a) => a.error_kind),
      column((a) => a.error_message),
      column((a) => a.latency_ms),
      column((a) => a.response_excerpt),
      column((a) => a.attempted_at),
      column((a) => retentionKeyColumn(a.delivery_id)),
    ],
  );
}

export type RecordedDeliveryEvent = RecordedEvent<DeliveryEvent>;

export function fold(
  before: DeliveryState | null,
  events: RecordedDeliveryEvent[],
): DeliveryState | null {
  return events.reduce<DeliveryState | null>(
    (state, event) => applyDeliveryEvent(state, event, event.version),
    before,
  );
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
 * Brings the delivery projections up to date with events just appended (grouped by stream, in
 * version order), in the transaction of the append. `before` holds each stream's state before
 * them (absent for new deliveries). Returns the new states.
 */
export async function projectDeliveryEvents(
  manager: EntityManager,
  before: ReadonlyMap<string, DeliveryState>,
  appended: RecordedDeliveryEvent[],
): Promise<Map<string, DeliveryState>> {
  const byStream = new Map<string, RecordedDeliveryEvent[]>();
  for (const event of appended) {
    byStream.set(event.streamId, [...(byStream.get(event.streamId) ?? []), event]);
  }
  const states = new Map<string, DeliveryState>();
  for (const [streamId, events] of byStream) {
    const state = fold(before.get(streamId) ?? null, events);
    if (state) {
      states.set(streamId, state);
    }
  }
  const rows = [...states.values()];
  await upsertDeliveries(manager, rows);
  await insertAttempts(manager, attemptsOf(appended));
  // A delivery without a `before` state was started by these very events (its stream was empty,
  // or the append would have failed), so no schedule row of it exists yet: the usual case of a
  // first attempt that succeeds needs no DELETE at all.
  await projectSchedule(manager, rows, (state) => before.has(state.id));
  return states;
}
