import { Inject, Injectable } from '@nestjs/common';
import { ApiConfig } from '@svc/config';
import { isId, retentionKeyColumn, retentionKeyOf } from '@svc/contracts';
import {
  decideReplayed,
  DeliveryEvent,
  DeliveryRecord,
  DeliveryState,
  projectDeliveryEvents,
  TEST_EVENT_TYPE,
} from '@svc/deliveries';
import { appendToStreams } from '@svc/event-store';
import { ProblemException, problems } from '@svc/http';
import type { Principal } from '@svc/identity';
import { EndpointChangeNotifier } from '@svc/messaging';
import { WebhookEndpointRecord } from '@svc/webhook-endpoints';
import { DataSource, EntityManager } from 'typeorm';
import {
  DELIVERY_BATCH_SIZE,
  DeliveryBatchRunner,
  DeliveryCursor,
  isRaceWithWriter,
} from '../delivery-batches/delivery-batch-runner';
import { environmentOf, visibleTo } from '../webhooks/webhook-endpoints.service';
import { CommandContext, commandMetadata } from '../audit/command-context';
import { recordRequestedAction, REQUESTED_ACTION_TYPES } from '../audit/requested-actions';

/** How replay runs: batch size and the cap of one call (`WEBHOOK_REPLAY_LIMIT`). */
export interface ReplayOptions {
  batchSize: number;
  replayLimit: number;
  /** Delivery data is kept this long (ADR 0023): nothing older can be replayed. */
  retentionMs: number;
}

export const REPLAY_OPTIONS = Symbol('REPLAY_OPTIONS');

export function replayOptionsOf(config: ApiConfig): ReplayOptions {
  return {
    batchSize: DELIVERY_BATCH_SIZE,
    replayLimit: config.webhooks.replayLimit,
    retentionMs: config.retention.retentionMs,
  };
}

export interface EndpointReplay {
  replayed: number;
  more: boolean;
  /** Where the next call goes on; null when nothing is left. */
  next: string | null;
}

/** The problem type of a delivery (or its stored event) past retention. */
export const EXPIRED_PROBLEM_TYPE = 'urn:svc:problem:expired';

/**
 * Replay (ADR 0029): a delivery sent again on request, whatever its status, as a fresh run of
 * attempts due at once; one delivery, or every delivery of an endpoint whose event's time is in a
 * range, in batches (DeliveryBatchRunner, as recover's re-drive) up to a cap per call, with a
 * cursor to go on. The engines send them as any due delivery, with the same event id
 * (`webhook-id`), so receivers can drop what they already have.
 */
@Injectable()
export class DeliveryReplayService {
  private readonly batches: DeliveryBatchRunner;

  constructor(
    private readonly dataSource: DataSource,
    private readonly notifier: EndpointChangeNotifier,
    @Inject(REPLAY_OPTIONS) private readonly options: ReplayOptions,
  ) {
    this.batches = new DeliveryBatchRunner(dataSource);
  }

  async replayOne(context: CommandContext, deliveryId: string): Promise<DeliveryState> {
    const principal = context.principal;
    if (!isId('del', deliveryId)) {
      throw deliveryNotFound(deliveryId);
    }
    let replayed: DeliveryState;
    try {
      replayed = await this.dataSource.transaction(async (manager) => {
        const delivery = await manager
          .createQueryBuilder(DeliveryRecord, 'delivery')
          .where('delivery.id = :deliveryId AND delivery.tenant_id = :tenantId', {
            deliveryId,
            tenantId: principal.tenantId,
          })
          .andWhere('delivery.retention_key = :key', { key: retentionKeyColumn(deliveryId) })
          .setLock('pessimistic_write')
          .getOne();
        if (!delivery) {
          throw this.isPastRetention(deliveryId)
            ? expired(`Delivery ${deliveryId} is older than the retention of delivery data.`)
            : deliveryNotFound(deliveryId);
        }
        await this.replayableEndpoint(manager, principal, delivery);
        await refuseIfBodyExpired(manager, delivery);
        const [claim]: unknown[] = await manager.query(
          'SELECT 1 FROM delivery_schedule WHERE delivery_id = $1 AND claimed_until > now()',
          [delivery.id],
        );
        const events = decideReplayed(
          { attemptInFlight: claim !== undefined },
          delivery,
          new Date(),
        );
        if (events.length === 0) {
          throw problems.conflict(
            `An attempt of ${deliveryId} is being made right now: it is the re-send. Replay it again once that attempt is recorded.`,
          );
        }
        const appended = await appendToStreams<DeliveryEvent>(manager, [
          {
            streamId: delivery.id,
            expectedVersion: delivery.version,
            events: events.map((event) => ({ ...event, metadata: commandMetadata(context) })),
          },
        ]);
        const states = await projectDeliveryEvents(
          manager,
          new Map([[delivery.id, delivery]]),
          appended,
        );
        await recordRequestedAction(manager, context, {
          type: REQUESTED_ACTION_TYPES.replayRequested,
          data: { endpoint_id: delivery.endpointId, delivery_id: delivery.id },
        });
        return states.get(delivery.id)!;
      });
    } catch (error) {
      if (isRaceWithWriter(error)) {
        throw problems.conflict(
          `Delivery ${deliveryId} was changed by the delivery engine at the same time; retry.`,
        );
      }
      throw error;
    }
    await this.notifier.announce(principal.tenantId, replayed.endpointId);
    return replayed;
  }

  async replayEndpoint(
    context: CommandContext,
    endpointId: string,
    range: { from: Date; to: Date; cursor?: string },
  ): Promise<EndpointReplay> {
    const principal = context.principal;
    this.checkRange(range);
    const after = decodeReplayCursor(range.cursor);
    const endpoint = isId('wh', endpointId)
      ? await this.dataSource
          .getRepository(WebhookEndpointRecord)
          .findOneBy({ id: endpointId, ...visibleTo(principal) })
      : null;
    if (!endpoint) {
      throw problems.notFound(`No webhook endpoint ${endpointId} exists for this tenant.`);
    }
    refuseIfDisabled(endpoint);
    // The request is the action, recorded before its batches run: what a call asked for stays in
    // the trail however far it got.
    await this.dataSource.transaction((manager) =>
      recordRequestedAction(manager, context, {
        type: REQUESTED_ACTION_TYPES.replayRequested,
        data: {
          endpoint_id: endpointId,
          from: range.from.toISOString(),
          to: range.to.toISOString(),
          ...(range.cursor !== undefined && { cursor: range.cursor }),
        },
      }),
    );
    const { changed, more, last } = await this.batches.run(
      {
        scope: (query) =>
          query
            .where('delivery.endpoint_id = :endpointId', { endpointId })
            .andWhere('delivery.tenant_id = :tenantId', { tenantId: principal.tenantId })
            // The partitions outside the range are pruned; within one, deliveries_endpoint_time_idx.
            .andWhere('delivery.retention_key >= :from AND delivery.retention_key < :to', {
              from: range.from.toISOString(),
              to: range.to.toISOString(),
            })
            // Old probes are not re-sent with the events; replay one by its id if need be.
            .andWhere('delivery.event_type <> :testType', { testType: TEST_EVENT_TYPE })
            // An attempt being made at this moment is the re-send asked for.
            .andWhere(
              `NOT EXISTS (SELECT 1 FROM delivery_schedule claim
                 WHERE claim.delivery_id = delivery.id AND claim.claimed_until > now())`,
            ),
        orderColumn: 'retention_key',
        decide: (delivery, now) => decideReplayed({ attemptInFlight: false }, delivery, now),
      },
      {
        batchSize: this.options.batchSize,
        limit: this.options.replayLimit,
        metadata: commandMetadata(context),
        after,
      },
    );
    if (changed > 0) {
      await this.notifier.announce(principal.tenantId, endpointId);
    }
    return { replayed: changed, more, next: more && last ? encodeReplayCursor(last) : null };
  }

  /**
   * The delivery's endpoint, if the caller may replay to it: of its environment (ADR 0018), not
   * deleted (there is nowhere to send), not disabled (nothing is sent there until recovered).
   */
  private async replayableEndpoint(
    manager: EntityManager,
    principal: Principal,
    delivery: DeliveryRecord,
  ): Promise<void> {
    const endpoint = await manager
      .getRepository(WebhookEndpointRecord)
      .findOneBy({ id: delivery.endpointId, tenantId: principal.tenantId });
    if (!endpoint) {
      // A delivery to a deleted endpoint counts as live (ADR 0018): only a live caller learns why.
      throw environmentOf(principal) === 'live'
        ? problems.notFound(
            `The endpoint of delivery ${delivery.id} (${delivery.endpointId}) was deleted: there is nowhere to replay it.`,
          )
        : deliveryNotFound(delivery.id);
    }
    if (endpoint.environment !== environmentOf(principal)) {
      throw deliveryNotFound(delivery.id);
    }
    refuseIfDisabled(endpoint);
  }

  private checkRange(range: { from: Date; to: Date }): void {
    if (range.to.getTime() <= range.from.getTime()) {
      throw problems.invalidRequest([{ field: 'to', detail: 'must be after from' }]);
    }
    if (range.to.getTime() - range.from.getTime() > this.options.retentionMs) {
      throw problems.invalidRequest([
        {
          field: 'to',
          detail: `must be at most ${spoken(this.options.retentionMs)} after from (the retention of delivery data)`,
        },
      ]);
    }
  }

  private isPastRetention(deliveryId: string): boolean {
    const createdAt = retentionKeyOf(deliveryId);
    return createdAt !== null && createdAt.getTime() < Date.now() - this.options.retentionMs;
  }
}

/** A duration as a person says it: 30 days, 12 hours, 3 minutes, 90 seconds. */
function spoken(ms: number): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ] as const) {
    if (ms % size === 0) {
      return `${ms / size} ${unit}${ms === size ? '' : 's'}`;
    }
  }
  return `${Math.round(ms / 1000)} seconds`;
}

function refuseIfDisabled(endpoint: WebhookEndpointRecord): void {
  if (endpoint.status === 'disabled') {
    throw problems.conflict(
      `Endpoint ${endpoint.id} is disabled (its receiver answered 410 Gone): recover it with POST /v1/webhooks/${endpoint.id}/recover first.`,
    );
  }
}

/** A delivery whose event's body is no longer stored cannot be sent again (ADR 0023). */
async function refuseIfBodyExpired(manager: EntityManager, delivery: DeliveryRecord) {
  const [stored]: unknown[] = await manager.query(
    'SELECT 1 FROM inbound_events WHERE tenant_id = $1 AND event_id = $2 LIMIT 1',
    [delivery.tenantId, delivery.eventId],
  );
  if (stored === undefined) {
    throw expired(
      `The body of event ${delivery.eventId} is no longer stored (retention of delivery data): delivery ${delivery.id} cannot be sent again.`,
    );
  }
}

function expired(detail: string): ProblemException {
  return new ProblemException({ type: EXPIRED_PROBLEM_TYPE, title: 'Gone', status: 410, detail });
}

function deliveryNotFound(id: string) {
  return problems.notFound(`No delivery ${id} exists for this tenant.`);
}

/** `at` as PostgreSQL prints a timestamptz: what the keyset compares, to the microsecond. */
const POSTGRES_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

/** Cursors are opaque to clients: the last delivery a call looked at, base64url JSON. */
export function encodeReplayCursor(cursor: DeliveryCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

export function decodeReplayCursor(text: string | undefined): DeliveryCursor | null {
  if (text === undefined) {
    return null;
  }
  try {
    const { at, id } = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as {
      at?: unknown;
      id?: unknown;
    };
    if (typeof at === 'string' && POSTGRES_TIME.test(at) && isId('del', id)) {
      return { at, id };
    }
  } catch {
    // the same answer as any other cursor this API did not issue
  }
  throw problems.invalidRequest([{ field: 'cursor', detail: 'is not a cursor this API issued' }]);
}
