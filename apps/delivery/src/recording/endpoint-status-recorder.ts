import { DeliveryConclusion, endpointStatusAfter } from '@svc/deliveries';
import { appendToStream } from '@svc/event-store';
import {
  ENDPOINT_EVENT_TYPES,
  EndpointDegraded,
  EndpointReactivated,
  EndpointStatus,
  projectEndpointEvents,
  WebhookEndpointRecord,
} from '@svc/webhook-endpoints';
import { EntityManager } from 'typeorm';

export interface EndpointConclusion {
  endpointId: string;
  deliveryId: string;
  conclusion: DeliveryConclusion;
}

export interface StatusTransition {
  endpointId: string;
  from: EndpointStatus;
  to: EndpointStatus;
}

/**
 * Endpoint status from the log: in the transaction that records delivery outcomes, appends a
 * degraded or reactivated event to each endpoint whose status the outcomes change (the last
 * outcome per endpoint decides) and updates the projection. Rows are locked in id order, so
 * concurrent transactions cannot deadlock on them.
 */
export async function recordEndpointStatus(
  manager: EntityManager,
  conclusions: EndpointConclusion[],
  at: Date,
): Promise<StatusTransition[]> {
  const decisive = new Map<string, EndpointConclusion>();
  for (const conclusion of conclusions) {
    if (conclusion.conclusion !== 'retrying') {
      decisive.set(conclusion.endpointId, conclusion);
    }
  }
  if (decisive.size === 0) {
    return [];
  }
  const current: { id: string; status: EndpointStatus }[] = await manager.query(
    'SELECT id, status FROM webhook_endpoints WHERE id = ANY($1::text[])',
    [[...decisive.keys()]],
  );
  const changing = current
    .filter(
      (row) => endpointStatusAfter(row.status, decisive.get(row.id)!.conclusion) !== row.status,
    )
    .map((row) => row.id)
    .sort();
  const transitions: StatusTransition[] = [];
  for (const endpointId of changing) {
    const row = await manager.findOne(WebhookEndpointRecord, {
      where: { id: endpointId },
      lock: { mode: 'pessimistic_write' },
    });
    const conclusion = decisive.get(endpointId)!;
    const to = row ? endpointStatusAfter(row.status, conclusion.conclusion) : null;
    if (!row || to === null || to === row.status) {
      continue;
    }
    const event =
      to === 'degraded'
        ? {
            type: ENDPOINT_EVENT_TYPES.degraded,
            data: {
              endpoint_id: endpointId,
              reason: 'delivery_abandoned',
              delivery_id: conclusion.deliveryId,
              at: at.toISOString(),
            } satisfies EndpointDegraded,
          }
        : {
            type: ENDPOINT_EVENT_TYPES.reactivated,
            data: {
              endpoint_id: endpointId,
              reason: 'delivery_succeeded',
              delivery_id: conclusion.deliveryId,
              at: at.toISOString(),
            } satisfies EndpointReactivated,
          };
    const appended = await appendToStream(manager, endpointId, row.version, [
      {
        type: event.type,
        data: event.data,
        metadata: { tenant_id: row.tenantId, actor: { kind: 'delivery_engine' } },
      },
    ]);
    await projectEndpointEvents(manager, endpointId, row, appended);
    transitions.push({ endpointId, from: row.status, to });
  }
  return transitions;
}
