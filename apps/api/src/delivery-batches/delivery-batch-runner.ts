import { Logger } from '@nestjs/common';
import { DeliveryEvent, DeliveryRecord, projectDeliveryEvents } from '@svc/deliveries';
import { appendToStreams, StreamVersionConflictError } from '@svc/event-store';
import { DataSource, EntityManager, QueryFailedError, SelectQueryBuilder } from 'typeorm';

/** Deliveries changed per transaction (ADR 0022). */
export const DELIVERY_BATCH_SIZE = 100;

/**
 * Where a keyset walk over deliveries stands: the last delivery it looked at. `at` is the walk's
 * time column as PostgreSQL prints it (a JavaScript Date would drop its microseconds).
 */
export interface DeliveryCursor {
  at: string;
  id: string;
}

/**
 * Which deliveries a walk changes, in which order, and what it appends to each: the re-drive of
 * recover (abandoned since a time, in completion order) and replay (of an endpoint in a time
 * range, in the order of their events' time) are two walks.
 */
export interface DeliveryWalk {
  /** The deliveries in scope: conditions on the alias `delivery` (tenant and endpoint first). */
  scope(query: SelectQueryBuilder<DeliveryRecord>): SelectQueryBuilder<DeliveryRecord>;
  /**
   * The time column walked, with the id as tie-break; an index on the scope's equalities and it
   * makes each batch an index range.
   */
  orderColumn: 'completed_at' | 'retention_key';
  /** The events one locked delivery gets (none: it is left as it is). */
  decide(delivery: DeliveryRecord, now: Date): DeliveryEvent[];
}

export interface DeliveryWalkOptions {
  batchSize: number;
  /** At most this many deliveries are changed by one walk; the answer says if more are left. */
  limit: number;
  /** Metadata of every event appended (who asked, and in which request). */
  metadata: Record<string, unknown>;
  /** Where a previous walk stopped: this one goes on after it. */
  after?: DeliveryCursor | null;
}

export interface DeliveryWalkResult {
  /** Deliveries that got events. */
  changed: number;
  /** The walk stopped at its limit with deliveries of the scope left after `last`. */
  more: boolean;
  /** The last delivery looked at (null when none was). */
  last: DeliveryCursor | null;
}

interface BatchResult {
  /** Deliveries the batch's SELECT returned (locked ones skipped); fewer than asked: no more. */
  selected: number;
  changed: number;
  last: DeliveryCursor | null;
}

/**
 * Changes many deliveries without holding many (ADR 0022): in batches, each its own short
 * transaction that locks the next deliveries of the scope in keyset order with SKIP LOCKED (a
 * writer holding one, an engine recording or another request, neither blocks nor is blocked),
 * appends what the walk decides for each at the version its row shows, projects, and commits;
 * up to a limit per call. When another writer got to a delivery of a batch first, the batch is
 * done again once, a delivery at a time, and that one is skipped: it is the other writer's now.
 */
export class DeliveryBatchRunner {
  private readonly logger = new Logger('DeliveryBatchRunner');

  constructor(private readonly dataSource: DataSource) {}

  async run(walk: DeliveryWalk, options: DeliveryWalkOptions): Promise<DeliveryWalkResult> {
    const { batchSize, limit, metadata } = options;
    let changed = 0;
    let cursor: DeliveryCursor | null = options.after ?? null;
    while (changed < limit) {
      const size = Math.min(batchSize, limit - changed);
      const batch = await this.runBatch(walk, cursor, size, metadata);
      changed += batch.changed;
      cursor = batch.last ?? cursor;
      if (batch.selected < size) {
        return { changed, more: false, last: cursor };
      }
    }
    const more = await inScope(this.dataSource.manager, walk)
      .andWhere(...afterCursor(walk, cursor))
      .getExists();
    return { changed, more, last: cursor };
  }

  private async runBatch(
    walk: DeliveryWalk,
    after: DeliveryCursor | null,
    limit: number,
    metadata: Record<string, unknown>,
  ): Promise<BatchResult> {
    // What the first try locked, to try again after a conflict (its transaction is gone then).
    const batch: { ids: string[] | null; last: DeliveryCursor | null } = { ids: null, last: null };
    try {
      return await this.dataSource.transaction(async (manager) => {
        const { deliveries, last } = await lockInScope(manager, walk, { after, limit });
        batch.ids = deliveries.map((delivery) => delivery.id);
        batch.last = last;
        const changed = await appendDecided(manager, walk, deliveries, metadata);
        return { selected: deliveries.length, changed, last };
      });
    } catch (error) {
      const ids = batch.ids;
      if (!ids || !isRaceWithWriter(error)) {
        throw error;
      }
      const changed = await this.dataSource.transaction(async (manager) => {
        const { deliveries } = await lockInScope(manager, walk, { ids });
        let count = 0;
        for (const delivery of deliveries) {
          await manager.query('SAVEPOINT change_one');
          try {
            count += await appendDecided(manager, walk, [delivery], metadata);
            await manager.query('RELEASE SAVEPOINT change_one');
          } catch (oneError) {
            if (!isRaceWithWriter(oneError)) {
              throw oneError;
            }
            await manager.query('ROLLBACK TO SAVEPOINT change_one');
            this.logger.warn(`delivery ${delivery.id} changed while in a batch; skipped`);
          }
        }
        return count;
      });
      return { selected: ids.length, changed, last: batch.last };
    }
  }
}

function inScope(manager: EntityManager, walk: DeliveryWalk) {
  return walk.scope(manager.createQueryBuilder(DeliveryRecord, 'delivery'));
}

/**
 * The keyset condition after the cursor. Its first half lets the index scan start at the cursor;
 * the row comparison breaks ties between deliveries of one time by id.
 */
function afterCursor(
  walk: DeliveryWalk,
  cursor: DeliveryCursor | null,
): [string, Record<string, unknown>?] {
  if (!cursor) {
    return ['TRUE'];
  }
  const column = `delivery.${walk.orderColumn}`;
  return [
    `${column} >= :cursorAt::timestamptz AND (${column}, delivery.id) > (:cursorAt::timestamptz, :cursorId)`,
    { cursorAt: cursor.at, cursorId: cursor.id },
  ];
}

/**
 * Locks deliveries of the scope, skipping those another transaction holds: either the next
 * `limit` after the cursor, in keyset order, or those of `ids` still in scope.
 */
async function lockInScope(
  manager: EntityManager,
  walk: DeliveryWalk,
  window: { after: DeliveryCursor | null; limit: number } | { ids: string[] },
): Promise<{ deliveries: DeliveryRecord[]; last: DeliveryCursor | null }> {
  const column = `delivery.${walk.orderColumn}`;
  const query = inScope(manager, walk)
    .addSelect(`${column}::text`, 'cursor_at')
    .orderBy(column, 'ASC')
    .addOrderBy('delivery.id', 'ASC')
    .setLock('pessimistic_write')
    .setOnLocked('skip_locked');
  if ('ids' in window) {
    query.andWhere('delivery.id = ANY(:ids)', { ids: window.ids });
  } else {
    query.andWhere(...afterCursor(walk, window.after)).limit(window.limit);
  }
  const { entities, raw } = await query.getRawAndEntities<{
    delivery_id: string;
    cursor_at: string;
  }>();
  const last = raw.at(-1);
  return {
    deliveries: entities,
    last: last ? { at: last.cursor_at, id: last.delivery_id } : null,
  };
}

/** Appends each delivery's decided events at its version and projects them; returns how many got any. */
async function appendDecided(
  manager: EntityManager,
  walk: DeliveryWalk,
  deliveries: DeliveryRecord[],
  metadata: Record<string, unknown>,
): Promise<number> {
  const now = new Date();
  const appended = await appendToStreams<DeliveryEvent>(
    manager,
    deliveries.map((delivery) => ({
      streamId: delivery.id,
      expectedVersion: delivery.version,
      events: walk.decide(delivery, now).map((event) => ({ ...event, metadata })),
    })),
  );
  await projectDeliveryEvents(
    manager,
    new Map(deliveries.map((delivery) => [delivery.id, delivery])),
    appended,
  );
  return new Set(appended.map((event) => event.streamId)).size;
}

/**
 * Another writer got to a delivery first: its stream is past the version the locked row showed
 * (StreamVersionConflictError), or its uncommitted append waits for our row lock while ours waits
 * for its version, which PostgreSQL breaks by failing one side (deadlock_detected, 40P01).
 */
export function isRaceWithWriter(error: unknown): boolean {
  return (
    error instanceof StreamVersionConflictError ||
    (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '40P01')
  );
}
