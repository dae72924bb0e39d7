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
  const due = states.filter(isScheduled);
  const done = states.filter((s) => !isScheduled(s) && mayBeScheduled(s)).map((s) => s.id);
  if (due.length > 0) {
    await manager.query(
      `INSERT INTO delivery_schedule (delivery_id, tenant_id, endpoint_id, due_at, claimed_until)
       SELECT d, t, e, a, NULL FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS u(d, t, e, a)
       ON CONFLICT (delivery_id) DO UPDATE SET due_at = EXCLUDED.due_at, claimed_until = NULL`,
      [
        due.map((s) => s.id),
        due.map((s) => s.tenantId),
        due.map((s) => s.endpointId),
        due.map((s) => iso(s.nextAttemptAt)),
      ],
    );
  }
  if (done.length > 0) {
    await manager.query('DELETE FROM delivery_schedule WHERE delivery_id = ANY($1::text[])', [
      done,
    ]);
  }
}
