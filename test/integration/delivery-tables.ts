import {
  DeliveryEvent,
  DeliveryState,
  InboundPayload,
  projectDeliveryEvents,
  storePayloads,
} from '@svc/deliveries';
import { appendToStream } from '@svc/event-store';
import { openDataSource } from '@svc/database';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../support';

/** A migrated database of the suite's own, and a way to close and drop it. */
export async function suiteDatabase(
  poolSize = 4,
): Promise<{ dataSource: DataSource; url: string; close: () => Promise<void> }> {
  const database = await createTestDatabase();
  const dataSource = await openDataSource({ url: database.url, poolSize });
  return {
    dataSource,
    url: database.url,
    close: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}

/**
 * Endpoint and event ids no other test of a suite uses: `tag` keeps one suite's apart from
 * another's in the shared tables, and each call gives new ones.
 */
export function uniqueIds(tag: string): {
  endpoints: (count: number) => string[];
  eventId: () => string;
} {
  let serial = 0;
  return {
    endpoints: (count) => {
      serial += 1;
      return Array.from({ length: count }, (_, index) => `wh_${tag}${serial}_${index}`);
    },
    eventId: () => `evt_${tag}${(serial += 1)}`,
  };
}

/** Appends events to a delivery's stream and projects them, as the recorder's transaction does. */
export async function recordDelivery(
  dataSource: DataSource,
  before: DeliveryState | null,
  events: DeliveryEvent[],
  payload?: InboundPayload,
): Promise<DeliveryState> {
  return dataSource.transaction(async (manager) => {
    if (payload) {
      await storePayloads(manager, [payload]);
    }
    const streamId = before?.id ?? events[0].data.delivery_id;
    const appended = await appendToStream<DeliveryEvent>(
      manager,
      streamId,
      before?.version ?? 0,
      events,
    );
    const states = await projectDeliveryEvents(
      manager,
      new Map(before ? [[streamId, before]] : []),
      appended,
    );
    return states.get(streamId)!;
  });
}

export function payloadOf(tenantId: string, eventId: string, body = '{}'): InboundPayload {
  return {
    tenantId,
    eventId,
    type: 'alert.created',
    body,
    traceContext: null,
    retentionKey: new Date(),
  };
}
