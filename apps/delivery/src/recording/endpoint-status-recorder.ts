import { DeliveryConclusion, endpointStatusAfter } from '@svc/deliveries';
import {
  changeEndpoint,
  decideDegrade,
  decideDisable,
  decideReactivate,
  EndpointEvent,
  EndpointState,
  EndpointStatus,
} from '@svc/webhook-endpoints';
import { EntityManager } from 'typeorm';

export interface EndpointConclusion {
  endpointId: string;
  deliveryId: string;
  conclusion: DeliveryConclusion;
}

export interface StatusTransition {
  endpointId: string;
  tenantId: string;
  from: EndpointStatus;
  to: EndpointStatus;
}

/**
 * Endpoint status from the log: in the transaction that records delivery conclusions, appends a
 * degraded, disabled or reactivated event to each endpoint whose status the conclusions change (the last
 * conclusion per endpoint decides) and updates the projection. Rows are locked in id order, so
 * concurrent transactions cannot deadlock on them.
 */
export async function recordEndpointStatus(
  manager: EntityManager,
  conclusions: EndpointConclusion[],
  at: Date,
): Promise<StatusTransition[]> {
  const decisive = new Map<string, EndpointConclusion>();
  for (const conclusion of conclusions) {
    // A 410 Gone stands whatever else the batch holds: the receiver asked for no more.
    if (
      conclusion.conclusion !== 'retrying' &&
      decisive.get(conclusion.endpointId)?.conclusion !== 'gone'
    ) {
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
    const { conclusion, deliveryId } = decisive.get(endpointId)!;
    const decide = (state: EndpointState | null): EndpointEvent[] =>
      !state
        ? []
        : conclusion === 'gone'
          ? decideDisable({ deliveryId }, state, at)
          : conclusion === 'abandoned'
            ? decideDegrade({ deliveryId }, state, at)
            : decideReactivate({ reason: 'delivery_succeeded', deliveryId }, state, at);
    const change = await changeEndpoint(manager, { id: endpointId }, decide, (state) => ({
      tenant_id: state.tenantId,
      actor: { kind: 'delivery_engine' },
    }));
    if (change?.before && change.after && change.appended.length > 0) {
      transitions.push({
        endpointId,
        tenantId: change.after.tenantId,
        from: change.before.status,
        to: change.after.status,
      });
    }
  }
  return transitions;
}
