import { Inject, Injectable } from '@nestjs/common';
import { isId } from '@svc/contracts';
import { decideRedriven, TEST_EVENT_TYPE } from '@svc/deliveries';
import { problems } from '@svc/http';
import { EndpointChangeNotifier } from '@svc/messaging';
import { changeEndpoint, decideReactivate, EndpointState } from '@svc/webhook-endpoints';
import { DataSource } from 'typeorm';
import {
  DELIVERY_BATCH_SIZE,
  DeliveryBatchRunner,
} from '../delivery-batches/delivery-batch-runner';
import { visibleTo } from './webhook-endpoints.service';
import { CommandContext, commandMetadata } from '../audit/command-context';
import { recordRequestedAction, REQUESTED_ACTION_TYPES } from '../audit/requested-actions';

/** Abandoned deliveries re-driven per transaction (ADR 0022). */
export const REDRIVE_BATCH_SIZE = DELIVERY_BATCH_SIZE;

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

/**
 * `POST /v1/webhooks/{id}/recover`: makes a degraded endpoint active again (one short
 * transaction) and, when asked, re-drives the deliveries to it abandoned since a given time, each
 * starting a new run of attempts, due at once. The re-drive goes in batches, each its own short
 * transaction that locks its deliveries with SKIP LOCKED, and stops at a cap per call (ADR 0022;
 * the batches are DeliveryBatchRunner's, shared with replay).
 */
@Injectable()
export class EndpointRecoveryService {
  private readonly batches: DeliveryBatchRunner;

  constructor(
    private readonly dataSource: DataSource,
    private readonly notifier: EndpointChangeNotifier,
    @Inject(RECOVERY_OPTIONS) private readonly options: RecoveryOptions,
  ) {
    this.batches = new DeliveryBatchRunner(dataSource);
  }

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
      await recordRequestedAction(manager, context, {
        type: REQUESTED_ACTION_TYPES.recoveryRequested,
        data: {
          endpoint_id: id,
          redrive_abandoned_since: redriveSince ? redriveSince.toISOString() : null,
        },
      });
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
   * Re-drives the endpoint's deliveries abandoned since the time given, oldest first, a batch per
   * transaction, until none is left or the cap is reached. No cursor is needed: a re-driven
   * delivery is no longer abandoned, so a next call goes on with the rest.
   */
  private async redrive(
    scope: { endpointId: string; tenantId: string; since: Date },
    metadata: Record<string, unknown>,
  ): Promise<{ redriven: number; more: boolean }> {
    const { changed, more } = await this.batches.run(
      {
        scope: (query) =>
          query
            .where('delivery.endpoint_id = :endpointId', { endpointId: scope.endpointId })
            .andWhere('delivery.tenant_id = :tenantId', { tenantId: scope.tenantId })
            .andWhere(`delivery.status = 'abandoned'`)
            .andWhere('delivery.completed_at >= :since', { since: scope.since })
            // A failed test event is not re-driven (ADR 0029); leaving it out keeps batches full.
            .andWhere('delivery.event_type <> :testType', { testType: TEST_EVENT_TYPE }),
        // The scan runs on deliveries_abandoned_idx (endpoint_id, completed_at).
        orderColumn: 'completed_at',
        decide: (delivery, now) => decideRedriven({ abandonedSince: scope.since }, delivery, now),
      },
      { batchSize: this.options.batchSize, limit: this.options.redriveLimit, metadata },
    );
    return { redriven: changed, more };
  }
}

function notFound(id: string) {
  return problems.notFound(`No webhook endpoint ${id} exists for this tenant.`);
}
