import { type EventEnvelope, type EventType, newId } from '@svc/contracts';

/** A fresh envelope: a new time-sortable `evt_` id and the creation time in UTC. */
export function newEventEnvelope<TData extends Record<string, unknown>>(
  tenantId: string,
  type: EventType,
  data: TData,
  now: Date = new Date(),
): EventEnvelope<TData> {
  return {
    id: newId('evt'),
    type,
    created_at: now.toISOString(),
    tenant_id: tenantId,
    data,
  };
}
