import { newId } from '@svc/contracts';
import {
  decideAttempted,
  DeliveryEvent,
  DeliveryRecord,
  DeliveryState,
  projectDeliveryEvents,
  resultOfStatus,
} from '@svc/deliveries';
import { appendToStreams } from '@svc/event-store';
import { DataSource } from 'typeorm';
import { ulid } from 'ulid';

const HOUR = 3_600_000;

/** What one attempt comes to: no retry left, a retry an hour away, or delivered. */
export type SeededOutcome = 'abandoned' | 'failing' | 'succeeded';

const resultOf = (outcome: SeededOutcome) =>
  outcome === 'succeeded'
    ? resultOfStatus(200, 9, 'ok')
    : resultOfStatus(503, 12, 'down for maintenance');

const policyOf = (outcome: SeededOutcome) =>
  outcome === 'failing'
    ? { retryScheduleMs: [HOUR], maxAttempts: 5 }
    : { retryScheduleMs: [], maxAttempts: 1 };

/**
 * Attempts appended to the log and projected in one transaction, as the engine's recorder does;
 * `before` holds the deliveries' states so far (absent: a first attempt). Returns the new states.
 */
async function record(
  dataSource: DataSource,
  attempts: { identity: Parameters<typeof decideAttempted>[0]['identity']; at: Date }[],
  outcome: SeededOutcome,
  before: ReadonlyMap<string, DeliveryState> = new Map(),
): Promise<DeliveryState[]> {
  const events = attempts.map(
    ({ identity, at }) =>
      decideAttempted(
        { identity, result: resultOf(outcome), policy: policyOf(outcome) },
        before.get(identity.delivery_id) ?? null,
        at,
      ).event,
  );
  const states = await dataSource.transaction(async (manager) => {
    const appended = await appendToStreams<DeliveryEvent>(
      manager,
      events.map((event) => ({
        streamId: event.data.delivery_id,
        expectedVersion: before.get(event.data.delivery_id)?.version ?? 0,
        events: [event],
      })),
    );
    return projectDeliveryEvents(manager, before, appended);
  });
  return [...states.values()];
}

/**
 * One delivery to the endpoint per time given (its event's time, which its id and so its
 * partition follow, as the engine makes them), each after one attempt a quarter second later.
 */
export function seedDeliveries(
  dataSource: DataSource,
  endpoint: { tenantId: string; endpointId: string },
  outcome: SeededOutcome,
  times: Date[],
  eventType = 'alert.created',
): Promise<DeliveryState[]> {
  const attempts = times.map((at) => ({
    identity: {
      delivery_id: `del_${ulid(at.getTime()).toLowerCase()}`,
      event_id: newId('evt'),
      endpoint_id: endpoint.endpointId,
      tenant_id: endpoint.tenantId,
      event_type: eventType,
    },
    at: new Date(at.getTime() + 250),
  }));
  return record(dataSource, attempts, outcome);
}

/** One more attempt of each delivery, as they stand in the projection, made now. */
export async function attemptAgain(
  dataSource: DataSource,
  ids: string[],
  outcome: SeededOutcome,
): Promise<DeliveryState[]> {
  const rows = await dataSource
    .getRepository(DeliveryRecord)
    .createQueryBuilder('delivery')
    .where('delivery.id IN (:...ids)', { ids })
    .getMany();
  const attempts = rows.map((row) => ({
    identity: {
      delivery_id: row.id,
      event_id: row.eventId,
      endpoint_id: row.endpointId,
      tenant_id: row.tenantId,
      event_type: row.eventType,
    },
    at: new Date(),
  }));
  return record(dataSource, attempts, outcome, new Map(rows.map((row) => [row.id, row])));
}
