import { Injectable } from '@nestjs/common';
import { isId } from '@svc/contracts';
import {
  decideRedriven,
  DeliveryEvent,
  DeliveryRecord,
  projectDeliveryEvents,
} from '@svc/deliveries';
import { appendToStreams } from '@svc/event-store';
import { problems } from '@svc/http';
import { EndpointChangeNotifier } from '@svc/messaging';
import { changeEndpoint, decideReactivate, EndpointState } from '@svc/webhook-endpoints';
import { DataSource, MoreThanOrEqual } from 'typeorm';
import { CommandContext, commandMetadata, visibleTo } from './webhook-endpoints.service';

export interface Recovery {
  endpoint: EndpointState;
  redriven: number;
}

/**
 * `POST /v1/webhooks/{id}/recover`: makes a degraded endpoint active again and, when asked,
 * re-drives the deliveries to it abandoned since a given time (each starts a new run of
 * attempts, due at once). All of it is events, appended in one transaction.
 */
@Injectable()
export class EndpointRecoveryService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly notifier: EndpointChangeNotifier,
  ) {}

  async recover(context: CommandContext, id: string, redriveSince: Date | null): Promise<Recovery> {
    const tenantId = context.principal.tenantId;
    if (!isId('wh', id)) {
      throw notFound(id);
    }
    const now = new Date();
    const metadata = commandMetadata(context);
    const recovery = await this.dataSource.transaction(async (manager) => {
      const change = await changeEndpoint(
        manager,
        { id, ...visibleTo(context.principal) },
        (current) => (current ? decideReactivate({ reason: 'recovered' }, current, now) : []),
        metadata,
      );
      if (!change?.after) {
        throw notFound(id);
      }
      const endpoint: EndpointState = change.after;
      if (!redriveSince) {
        return { endpoint, redriven: 0 };
      }
      const abandoned = await manager.find(DeliveryRecord, {
        where: {
          endpointId: id,
          tenantId,
          status: 'abandoned',
          completedAt: MoreThanOrEqual(redriveSince),
        },
        lock: { mode: 'pessimistic_write' },
      });
      const appended = await appendToStreams<DeliveryEvent>(
        manager,
        abandoned.map((delivery) => ({
          streamId: delivery.id,
          expectedVersion: delivery.version,
          events: decideRedriven({ abandonedSince: redriveSince }, delivery, now).map((event) => ({
            ...event,
            metadata,
          })),
        })),
      );
      await projectDeliveryEvents(
        manager,
        new Map(abandoned.map((delivery) => [delivery.id, delivery])),
        appended,
      );
      return { endpoint, redriven: appended.length };
    });
    await this.notifier.announce(tenantId, id);
    return recovery;
  }
}

function notFound(id: string) {
  return problems.notFound(`No webhook endpoint ${id} exists for this tenant.`);
}
