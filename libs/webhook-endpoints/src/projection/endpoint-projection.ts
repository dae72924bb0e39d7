import { appendToStream, readAll, RecordedEvent } from '@svc/event-store';
import { EntityManager, FindOptionsWhere } from 'typeorm';
import { ENDPOINT_EVENT_TYPES, EndpointEvent } from '../endpoint-events';
import { applyEndpointEvent, EndpointState } from '../endpoint-state';
import { WebhookEndpointRecord } from './webhook-endpoint.entity';

type RecordedEndpointEvent = RecordedEvent<EndpointEvent>;

function foldRecorded(
  state: EndpointState | null,
  events: RecordedEndpointEvent[],
): EndpointState | null {
  return events.reduce<EndpointState | null>(
    (current, event) => applyEndpointEvent(current, event, event.version),
    state,
  );
}

/**
 * Brings an endpoint's projection row up to date with events just appended to its stream.
 * Runs in the transaction of the append, so the row and the log never disagree.
 */
export async function projectEndpointEvents(
  manager: EntityManager,
  endpointId: string,
  before: EndpointState | null,
  appended: RecordedEndpointEvent[],
): Promise<EndpointState | null> {
  const after = foldRecorded(before, appended);
  if (after) {
    await manager.upsert(WebhookEndpointRecord, after, ['id']);
  } else {
    await manager.delete(WebhookEndpointRecord, { id: endpointId });
  }
  return after;
}

/** What a command did to an endpoint: its state before and after, and the events it got. */
export interface EndpointChange {
  before: EndpointState | null;
  after: EndpointState | null;
  appended: RecordedEndpointEvent[];
}

/**
 * The one way an endpoint's stream changes, in the caller's transaction: lock the projection row
 * (`FOR UPDATE`; `where` names it, with any tenant and environment condition), `decide` from its
 * state, append what was decided at the row's version, and project it. Without a row, `decide`
 * sees null (only a registration decides anything then). Returns null when there is no row and
 * nothing was decided; a stale version is a StreamVersionConflictError.
 */
export async function changeEndpoint(
  manager: EntityManager,
  where: FindOptionsWhere<WebhookEndpointRecord> & { id: string },
  decide: (state: EndpointState | null) => EndpointEvent[],
  metadata: Record<string, unknown> | ((state: EndpointState) => Record<string, unknown>),
): Promise<EndpointChange | null> {
  const before = await manager.findOne(WebhookEndpointRecord, {
    where,
    lock: { mode: 'pessimistic_write' },
  });
  const events = decide(before);
  if (!before && events.length === 0) {
    return null;
  }
  if (events.length === 0) {
    return { before, after: before, appended: [] };
  }
  const meta = typeof metadata === 'function' && before ? metadata(before) : metadata;
  const appended = await appendToStream<EndpointEvent>(
    manager,
    where.id,
    before?.version ?? 0,
    events.map((event) => ({ ...event, metadata: meta as Record<string, unknown> })),
  );
  const after = await projectEndpointEvents(manager, where.id, before, appended);
  return { before, after, appended };
}

/** Drops the projection and folds it again from the whole log; returns the number of rows. */
export async function rebuildEndpointProjection(manager: EntityManager): Promise<number> {
  await manager.query('DELETE FROM webhook_endpoints');
  const states = new Map<string, EndpointState | null>();
  for await (const event of readAll<EndpointEvent>(manager, {
    types: Object.values(ENDPOINT_EVENT_TYPES),
  })) {
    states.set(event.streamId, foldRecorded(states.get(event.streamId) ?? null, [event]));
  }
  const rows = [...states.values()].filter((state): state is EndpointState => state !== null);
  for (let start = 0; start < rows.length; start += 500) {
    await manager.insert(WebhookEndpointRecord, rows.slice(start, start + 500));
  }
  return rows.length;
}
