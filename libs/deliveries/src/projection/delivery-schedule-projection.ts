import { StatementParameters } from '@svc/event-store';
import { EntityManager } from 'typeorm';
import type { DeliveryState } from '../delivery-state';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A delivery waits in the schedule while it is pending with a time for its next attempt. */
export function isScheduled(state: DeliveryState): boolean {
  return state.status === 'pending' && state.nextAttemptAt !== null;
}

/**
 * The schedule projection (`delivery_schedule`): pending deliveries with a due time are in it,
 * unclaimed; all others are not. `mayBeScheduled` says which of the others can have a row to
 * remove (by default all), so that new deliveries cost no DELETE.
 */
export async function projectSchedule(
  manager: EntityManager,
  states: readonly DeliveryState[],
  mayBeScheduled: (state: DeliveryState) => boolean = () => true,
): Promise<void> {
  for (const statement of scheduleSql(states, mayBeScheduled)) {
    await manager.query(statement.sql, statement.parameters.values);
  }
}

/**
 * The statements of projectSchedule (none, an upsert, a delete or both), each with its own
 * parameters, or all in `shared` with their writes gated on `gate` (CTEs of a group commit).
 */
export function scheduleSql(
  states: readonly DeliveryState[],
  mayBeScheduled: (state: DeliveryState) => boolean = () => true,
  shared?: { parameters: StatementParameters; gate: string },
): { sql: string; parameters: StatementParameters }[] {
  const due = states.filter(isScheduled);
  const done = states.filter((s) => !isScheduled(s) && mayBeScheduled(s)).map((s) => s.id);
  const gate = shared?.gate ?? 'true';
  const statements: { sql: string; parameters: StatementParameters }[] = [];
  if (due.length > 0) {
    const parameters = shared?.parameters ?? new StatementParameters();
    statements.push({
      parameters,
      sql: `INSERT INTO delivery_schedule (delivery_id, tenant_id, endpoint_id, due_at, claimed_until, ordered, sequence)
       SELECT d, t, e, a, NULL, o, n FROM unnest(${parameters.add(due.map((s) => s.id))}::text[],
                                           ${parameters.add(due.map((s) => s.tenantId))}::text[],
                                           ${parameters.add(due.map((s) => s.endpointId))}::text[],
                                           ${parameters.add(due.map((s) => iso(s.nextAttemptAt)))}::timestamptz[],
                                           ${parameters.add(due.map((s) => s.ordered))}::boolean[],
                                           ${parameters.add(due.map((s) => s.sequence))}::bigint[])
         AS u(d, t, e, a, o, n)
       WHERE ${gate}
       ON CONFLICT (delivery_id) DO UPDATE SET due_at = EXCLUDED.due_at, claimed_until = NULL`,
    });
  }
  if (done.length > 0) {
    const parameters = shared?.parameters ?? new StatementParameters();
    statements.push({
      parameters,
      sql: `DELETE FROM delivery_schedule
       WHERE delivery_id = ANY(${parameters.add(done)}::text[]) AND ${gate}`,
    });
  }
  return statements;
}
