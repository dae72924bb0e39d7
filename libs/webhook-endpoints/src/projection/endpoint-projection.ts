import { readAll, RecordedEvent } from '@svc/event-store';
import { EntityManager } from 'typeorm';
import { ENDPOINT_EVENT_TYPES, EndpointEvent } from '../endpoint-events';
import { applyEndpointEvent, EndpointState } from '../endpoint-state';
import { WebhookEndpointRecord } from './webhook-endpoint.entity';

function foldRecorded(state: EndpointState | null, events: RecordedEvent[]): EndpointState | null {
  return events.reduce<EndpointState | null>(
    (current, event) =>
      applyEndpointEvent(current, event as unknown as EndpointEvent, event.version),
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
  appended: RecordedEvent[],
): Promise<EndpointState | null> {
  const after = foldRecorded(before, appended);
  if (after) {
    await manager.upsert(WebhookEndpointRecord, after, ['id']);
  } else {
    await manager.delete(WebhookEndpointRecord, { id: endpointId });
  }
  return after;
}

/** Drops the projection and folds it again from the whole log; returns the number of rows. */
export async function rebuildEndpointProjection(manager: EntityManager): Promise<number> {
  await manager.query('DELETE FROM webhook_endpoints');
  const states = new Map<string, EndpointState | null>();
  for await (const event of readAll(manager, { types: Object.values(ENDPOINT_EVENT_TYPES) })) {
    states.set(event.streamId, foldRecorded(states.get(event.streamId) ?? null, [event]));
  }
  const rows = [...states.values()].filter((state): state is EndpointState => state !== null);
  for (let start = 0; start < rows.length; start += 500) {
    await manager.insert(WebhookEndpointRecord, rows.slice(start, start + 500));
  }
  return rows.length;
}
