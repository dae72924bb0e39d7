import {
  DeliveryEvent,
  DeliveryRecord,
  DeliveryState,
  projectDeliveryEvents,
  storePayloads,
} from '@svc/deliveries';
import { appendToStreams, isUniqueViolation, StreamVersionConflictError } from '@svc/event-store';
import { DataSource, EntityManager } from 'typeorm';
import type { DeliveryCommit } from '../../recording/delivery-commit';
import { recordEndpointStatus, StatusTransition } from '../../recording/endpoint-status-recorder';
import { writeInOneStatement } from '../../recording/group-commit-statement';
import type { RecordWriter, WrittenBatch } from '../../recording/record-writer';

/**
 * The recorder's writes in PostgreSQL: a batch in one statement (group-commit-statement.ts), or,
 * when an endpoint's status may change, in one transaction; the delivery that won a race, read
 * back by its id or by its (tenant, event, endpoint).
 */
export class PostgresRecordWriter implements RecordWriter {
  constructor(private readonly dataSource: DataSource) {}

  async write(commits: DeliveryCommit[]): Promise<WrittenBatch> {
    const states = await writeInOneStatement(this.dataSource, commits);
    return states
      ? { states, transitions: [] }
      : this.dataSource.transaction((manager) => writeRecords(manager, commits));
  }

  async winner(
    deliveryId: string,
    of: { tenantId: string; eventId: string; endpointId: string },
  ): Promise<DeliveryState | null> {
    const deliveries = this.dataSource.getRepository(DeliveryRecord);
    return (
      (await deliveries.findOneBy({ id: deliveryId })) ??
      (await deliveries.findOneBy({
        tenantId: of.tenantId,
        eventId: of.eventId,
        endpointId: of.endpointId,
      }))
    );
  }

  isConflict(error: unknown): boolean {
    return (
      error instanceof StreamVersionConflictError ||
      isUniqueViolation(error, 'deliveries_tenant_event_endpoint_key')
    );
  }
}

async function writeRecords(
  manager: EntityManager,
  commits: DeliveryCommit[],
): Promise<WrittenBatch> {
  await storePayloads(
    manager,
    commits.flatMap((c) => (c.payload ? [c.payload] : [])),
  );
  const appended = await appendToStreams<DeliveryEvent>(
    manager,
    commits.map((c) => ({
      streamId: c.deliveryId,
      expectedVersion: c.before?.version ?? 0,
      events: [{ ...c.event, metadata: c.metadata }],
    })),
  );
  const before = new Map(
    commits.flatMap((c) => (c.before ? [[c.deliveryId, c.before] as const] : [])),
  );
  const states = await projectDeliveryEvents(manager, before, appended);
  const transitions: StatusTransition[] = await recordEndpointStatus(
    manager,
    commits.flatMap((c) => (c.conclusion ? [c.conclusion] : [])),
    appended[0]?.recordedAt ?? new Date(),
  );
  return { states, transitions };
}
