import { Inject, Injectable, Logger } from '@nestjs/common';
import { isId } from '@svc/contracts';
import {
  decideRedriven,
  DeliveryEvent,
  DeliveryRecord,
  projectDeliveryEvents,
} from '@svc/deliveries';
import { appendToStreams, StreamVersionConflictError } from '@svc/event-store';
import { problems } from '@svc/http';
import { EndpointChangeNotifier } from '@svc/messaging';
import { changeEndpoint, decideReactivate, EndpointState } from '@svc/webhook-endpoints';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { CommandContext, commandMetadata, visibleTo } from './webhook-endpoints.service';

/** Abandoned deliveries re-driven per transaction (ADR 0022). */
export const REDRIVE_BATCH_SIZE = 100;

/** How `POST /v1/webhooks/{id}/recover` re-drives: batch size and the cap of one call. */
export interface RecoveryOptions {
  batchSize: number;
  /** At most this many deliveries are re-driven by one call (`WEBHOOK_RECOVER_REDRIVE_LIMIT`). */
  redriveLimit: number;
}

/** The injection token of the RecoveryOptions (built from the configuration by the module). */
export const RECOVERY_OPTIONS = Symbol('RECOVERY_OPTIONS');

export interface Recovery {
  endpoint: EndpointState;
  redriven: number;
  /** The call stopped at its cap with abandoned deliveries left: call again to re-drive them. */
  more: boolean;
}

/** Where the keyset scan of a call stands: the last delivery it looked at. */
interface Cursor {
  /** `completed_at` as PostgreSQL prints it: a JavaScript Date would drop microseconds. */
  completedAt: string;
  id: string;
}

interface Scope {
  endpointId: string;
  tenantId: string;
  since: Date;
}

interface BatchResult {
  /** Deliveries the batch's SELECT returned (locked ones skipped); fewer than asked: no more. */
  selected: number;
  redriven: number;
  last: Cursor | null;
}

/**
 * `POST /v1/webhooks/{id}/recover`: makes a degraded endpoint active again (one short
 * transaction) and, when asked, re-drives the deliveries to it abandoned since a given time, each
 * starting a new run of attempts, due at once. The re-drive goes in batches, each its own short
 * transaction that locks its deliveries with SKIP LOCKED, and stops at a cap per call (ADR 0022).
 */
@Injectable()
export class EndpointRecoveryService {
  private readonly logger = new Logger('EndpointRecovery');

  constructor(
    private readonly dataSource: DataSource,
    private readonly notifier: EndpointChangeNotifier,
    @Inject(RECOVERY_OPTIONS) private readonly options: RecoveryOptions,
  ) {}

  async recover(context: CommandContext, id: string, redriveSince: Date | null): Promise<Recovery> {
    const tenantId = context.principal.tenantId;
    if (!isId('wh', id)) {
      throw notFound(id);
    }
    const metadata = commandMetadata(context);
    const endpoint = await this.dataSource.transaction(async (manager) => {
      const change = await changeEndpoint(
        manager,
        { id, ...visibleTo(context.principal) },
        (current) =>
          current ? decideReactivate({ reason: 'recovered' }, current, new Date()) : [],
        metadata,
      );
      if (!change?.after) {
        throw notFound(id);
      }
      return change.after;
    });
    await this.notifier.announce(tenantId, id);
    if (!redriveSince) {
      return { endpoint, redriven: 0, more: false };
    }
    const { redriven, more } = await this.redrive(
      { endpointId: id, tenantId, since: redriveSince },
      metadata,
    );
    return { endpoint, redriven, more };
  }

  /**
   * Re-drives the scope's abandoned deliveries in (completed_at, id) order, a batch per
   * transaction, until none is left or the cap is reached.
   */
  private async redrive(
    scope: Scope,
    metadata: Record<string, unknown>,
  ): Promise<{ redriven: number; more: boolean }> {
    const { batchSize, redriveLimit } = this.options;
    let redriven = 0;
    let cursor: Cursor | null = null;
    while (redriven < redriveLimit) {
      const limit = Math.min(batchSize, redriveLimit - redriven);
      const batch = await this.redriveBatch(scope, cursor, limit, metadata);
      redriven += batch.redriven;
      if (batch.selected < limit) {
        return { redriven, more: false };
      }
      cursor = batch.last;
    }
    return { redriven, more: await abandonedAfter(this.dataSource.manager, scope, cursor) };
  }

  /**
   * One batch in one transaction. When a writer got to one of its deliveries first (an engine
   * recorded something the projection row, read under lock, did not show yet), the whole append
   * fails: the batch is done again once, a delivery at a time, and the conflicting one skipped.
   */
  private async redriveBatch(
    scope: Scope,
    after: Cursor | null,
    limit: number,
    metadata: Record<string, unknown>,
  ): Promise<BatchResult> {
    // What the first try locked, to try again after a conflict (its transaction is gone then).
    const batch: { ids: string[] | null; last: Cursor | null } = { ids: null, last: null };
    try {
      return await this.dataSource.transaction(async (manager) => {
        const { deliveries, last } = await lockAbandoned(manager, scope, { after, limit });
        batch.ids = deliveries.map((delivery) => delivery.id);
        batch.last = last;
        const redriven = await appendRedriven(manager, scope, deliveries, metadata);
        return { selected: deliveries.length, redriven, last };
      });
    } catch (error) {
      const ids = batch.ids;
      if (!ids || !isRaceWithWriter(error)) {
        throw error;
      }
      const redriven = await this.dataSource.transaction(async (manager) => {
        const { deliveries } = await lockAbandoned(manager, scope, { ids });
        let count = 0;
        for (const delivery of deliveries) {
          await manager.query('SAVEPOINT redrive_one');
          try {
            count += await appendRedriven(manager, scope, [delivery], metadata);
            await manager.query('RELEASE SAVEPOINT redrive_one');
          } catch (oneError) {
            if (!isRaceWithWriter(oneError)) {
              throw oneError;
            }
            await manager.query('ROLLBACK TO SAVEPOINT redrive_one');
            this.logger.warn(`delivery ${delivery.id} changed while being re-driven; skipped`);
          }
        }
        return count;
      });
      return { selected: ids.length, redriven, last: batch.last };
    }
  }
}

/**
 * Locks the scope's abandoned deliveries, skipping those another transaction holds (an engine
 * recording, another recover call): either the next `limit` after the cursor, in keyset order,
 * or those of `ids` still abandoned.
 */
async function lockAbandoned(
  manager: EntityManager,
  scope: Scope,
  window: { after: Cursor | null; limit: number } | { ids: string[] },
): Promise<{ deliveries: DeliveryRecord[]; last: Cursor | null }> {
  const query = abandonedIn(manager, scope)
    .addSelect('delivery.completed_at::text', 'cursor_at')
    .orderBy('delivery.completed_at', 'ASC')
    .addOrderBy('delivery.id', 'ASC')
    .setLock('pessimistic_write')
    .setOnLocked('skip_locked');
  if ('ids' in window) {
    query.andWhere('delivery.id = ANY(:ids)', { ids: window.ids });
  } else {
    afterCursor(query, window.after).limit(window.limit);
  }
  const { entities, raw } = await query.getRawAndEntities<{
    delivery_id: string;
    cursor_at: string;
  }>();
  const last = raw.at(-1);
  return {
    deliveries: entities,
    last: last ? { completedAt: last.cursor_at, id: last.delivery_id } : null,
  };
}

/** Whether any abandoned delivery of the scope comes after the cursor (locked ones included). */
async function abandonedAfter(
  manager: EntityManager,
  scope: Scope,
  cursor: Cursor | null,
): Promise<boolean> {
  return afterCursor(abandonedIn(manager, scope), cursor).getExists();
}

function abandonedIn(manager: EntityManager, scope: Scope) {
  return manager
    .createQueryBuilder(DeliveryRecord, 'delivery')
    .where('delivery.endpoint_id = :endpointId', { endpointId: scope.endpointId })
    .andWhere('delivery.tenant_id = :tenantId', { tenantId: scope.tenantId })
    .andWhere(`delivery.status = 'abandoned'`)
    .andWhere('delivery.completed_at >= :since', { since: scope.since });
}

function afterCursor<Q extends ReturnType<typeof abandonedIn>>(query: Q, cursor: Cursor | null): Q {
  if (cursor) {
    // The first condition lets the scan of deliveries_abandoned_idx start at the cursor.
    query
      .andWhere('delivery.completed_at >= :cursorAt::timestamptz', { cursorAt: cursor.completedAt })
      .andWhere('(delivery.completed_at, delivery.id) > (:cursorAt::timestamptz, :cursorId)', {
        cursorId: cursor.id,
      });
  }
  return query;
}

/** Appends each delivery's `delivery.redriven` at its version and projects it; returns how many. */
async function appendRedriven(
  manager: EntityManager,
  scope: Scope,
  deliveries: DeliveryRecord[],
  metadata: Record<string, unknown>,
): Promise<number> {
  const now = new Date();
  const appended = await appendToStreams<DeliveryEvent>(
    manager,
    deliveries.map((delivery) => ({
      streamId: delivery.id,
      expectedVersion: delivery.version,
      events: decideRedriven({ abandonedSince: scope.since }, delivery, now).map((event) => ({
        ...event,
        metadata,
      })),
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
function isRaceWithWriter(error: unknown): boolean {
  return (
    error instanceof StreamVersionConflictError ||
    (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '40P01')
  );
}

function notFound(id: string) {
  return problems.notFound(`No webhook endpoint ${id} exists for this tenant.`);
}
