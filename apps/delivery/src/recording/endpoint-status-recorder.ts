import { DeliveryConclusion, endpointStatusAfter, statusesKeptBy } from '@svc/deliveries';
import { StatementParameters } from '@svc/event-store';
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
 * The conclusion that decides each endpoint's status: the last one of the batch, except that a
 * 410 Gone stands whatever else the batch holds (the receiver asked for no more). A retry
 * decides nothing.
 */
export function decisiveConclusions(
  conclusions: EndpointConclusion[],
): Map<string, EndpointConclusion> {
  const decisive = new Map<string, EndpointConclusion>();
  for (const conclusion of conclusions) {
    if (
      conclusion.conclusion !== 'retrying' &&
      decisive.get(conclusion.endpointId)?.conclusion !== 'gone'
    ) {
      decisive.set(conclusion.endpointId, conclusion);
    }
  }
  return decisive;
}

/**
 * A query of one row, `proceed`: true when every endpoint the conclusions name is, right now,
 * in a status its decisive conclusion keeps (or is gone), so that a group commit needs no
 * endpoint event and may be written as one statement gated on it. It reads what
 * recordEndpointStatus reads first, without a lock, as that does.
 */
export function endpointStatusesKeptSql(
  conclusions: EndpointConclusion[],
  parameters: StatementParameters,
): string {
  const decisive = [...decisiveConclusions(conclusions).values()];
  if (decisive.length === 0) {
    return 'SELECT true AS proceed';
  }
  const kept = decisive.flatMap(({ endpointId, conclusion }) =>
    statusesKeptBy(conclusion).map((status) => ({ endpointId, status })),
  );
  return `SELECT NOT EXISTS (
       SELECT 1 FROM webhook_endpoints e
       WHERE e.id = ANY(${parameters.add(decisive.map((c) => c.endpointId))}::text[])
         AND NOT EXISTS (
           SELECT 1 FROM unnest(${parameters.add(kept.map((k) => k.endpointId))}::text[],
                                ${parameters.add(kept.map((k) => k.status))}::text[]) AS k(id, status)
           WHERE k.id = e.id AND k.status = e.status)
     ) AS proceed`;
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
  const decisive = decisiveConclusions(conclusions);
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
