import type { DeliveryState } from '@svc/deliveries';
import type { DeliveryCommit } from './delivery-commit';
import type { StatusTransition } from './endpoint-status-recorder';

/** What a batch of records came to once written. */
export interface WrittenBatch {
  /** Each delivery's state after its record. */
  states: ReadonlyMap<string, DeliveryState>;
  /** The endpoint status changes the batch's conclusions made. */
  transitions: StatusTransition[];
}

/**
 * Where the recorder writes (PostgreSQL: adapters/postgres/postgres-record-writer.ts), declared by the recorder so
 * that its batching, race and outage handling is tested over a fake (test/medium).
 */
export interface RecordWriter {
  /** Writes the batch whole, or throws: a conflict (`isConflict`), the database away, or worse. */
  write(commits: DeliveryCommit[]): Promise<WrittenBatch>;
  /** The delivery that won a race against a record of `deliveryId`, or null. */
  winner(
    deliveryId: string,
    of: { tenantId: string; eventId: string; endpointId: string },
  ): Promise<DeliveryState | null>;
  /** Whether a write failed because another writer got to a delivery first. */
  isConflict(error: unknown): boolean;
}
