import { Injectable } from '@nestjs/common';
import { isId } from '@svc/contracts';
import {
  DELIVERY_EVENT_TYPES,
  DeliveryRecord,
  DeliveryRedriven,
  projectDeliveryEvents,
} from '@svc/deliveries';
import { appendToStream, appendToStreams } from '@svc/event-store';
import { problems } from '@svc/http';
import { EndpointChangeNotifier } from '@svc/messaging';
import {
  ENDPOINT_EVENT_TYPES,
  EndpointReactivated,
  EndpointState,
  projectEndpointEvents,
  WebhookEndpointRecord,
} from '@svc/webhook-endpoints';
import { DataSource, MoreThanOrEqual } from 'typeorm';
import { CommandContext, visibleTo } from './webhook-endpoints.service';

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
    const metadata = {
      tenant_id: tenantId,
      actor: { kind: context.principal.kind, id: context.principal.credentialId },
      request_id: context.requestId,
    };
    const recovery = await this.dataSource.transaction(async (manager) => {
      const current = await manager.findOne(WebhookEndpointRecord, {
        where: { id, ...visibleTo(context.principal) },
        lock: { mode: 'pessimistic_write' },
      });
      if (!current) {
        throw notFound(id);
      }
      let endpoint: EndpointState = current;
      if (current.status === 'degraded') {
        const reactivated: EndpointReactivated = {
          endpoint_id: id,
          reason: 'recovered',
          delivery_id: null,
          at: now.toISOString(),
        };
        const appended = await appendToStream(manager, id, current.version, [
          {
            type: ENDPOINT_EVENT_TYPES.reactivated,
            data: reactivated as unknown as Record<string, unknown>,
            metadata,
          },
        ]);
        endpoint = (await projectEndpointEvents(manager, id, current, appended)) as EndpointState;
      }
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
      const appended = await appendToStreams(
        manager,
        abandoned.map((delivery) => {
          const data: DeliveryRedriven = {
            delivery_id: delivery.id,
            due_at: now.toISOString(),
            redriven_at: now.toISOString(),
          };
          return {
            streamId: delivery.id,
            expectedVersion: delivery.version,
            events: [
              {
                type: DELIVERY_EVENT_TYPES.redriven,
                data: data as unknown as Record<string, unknown>,
                metadata,
              },
            ],
          };
        }),
      );
      await projectDeliveryEvents(
        manager,
        new Map(abandoned.map((delivery) => [delivery.id, delivery])),
        appended,
      );
      return { endpoint, redriven: abandoned.length };
    });
    await this.notifier.announce(tenantId, id);
    return recovery;
  }
}

function notFound(id: string) {
  return problems.notFound(`No webhook endpoint ${id} exists for this tenant.`);
}
