import {
  derivedId,
  type EventEnvelope,
  isOperationalEventType,
  type OperationalEventType,
} from '@svc/contracts';
import { DELIVERY_EVENT_TYPES, type DeliveryAttemptedEvent } from '@svc/deliveries';
import {
  applyEndpointEvent,
  ENDPOINT_EVENT_TYPES,
  type EndpointDegradedEvent,
  type EndpointDisabledEvent,
  type EndpointEnvironment,
  type EndpointEvent,
  type EndpointReactivatedEvent,
  type EndpointState,
} from '@svc/webhook-endpoints';

/**
 * The operational events the relay raises from the log (ADR 0030); `webhook.test` is not among
 * them: it is sent on a tenant's request, not derived from the log.
 */
export const RELAYED_OPERATIONAL_EVENT_TYPES = [
  'webhook.endpoint.degraded',
  'webhook.endpoint.reactivated',
  'webhook.endpoint.disabled',
  'webhook.delivery.abandoned',
] as const satisfies readonly OperationalEventType[];

export type RelayedOperationalEventType = (typeof RELAYED_OPERATIONAL_EVENT_TYPES)[number];

/**
 * A row of the outbox: a copy of the log event that may raise an operational event, with where
 * it stands in the log. The migration's trigger copies only these types (and only abandoning
 * attempts), so the row is trusted to be what its type says, as the log's rows are.
 */
export type OutboxEntry = (
  DeliveryAttemptedEvent | EndpointDegradedEvent | EndpointReactivatedEvent | EndpointDisabledEvent
) & {
  streamId: string;
  version: number;
  /** The log's position, a bigint as a string. */
  position: string;
  recordedAt: Date;
};

/** The endpoint an operational event is about, as its stream stood when the event was recorded. */
export interface EndpointAtTheTime {
  id: string;
  tenantId: string;
  url: string;
  environment: EndpointEnvironment;
}

/** An event of an endpoint's stream with its position in the log (a bigint as a string). */
export type PositionedEndpointEvent = EndpointEvent & { version: number; position: string };

/**
 * The endpoint as its stream stood at a position of the log: its events up to there, folded. A
 * deleted endpoint is taken as it was before its deletion, since an abandoned delivery may be
 * recorded after it. Null when the stream has no registration up to there.
 */
export function endpointAsOf(
  events: readonly PositionedEndpointEvent[],
  position: string,
): EndpointAtTheTime | null {
  const upTo = BigInt(position);
  let state: EndpointState | null = null;
  let lastKnown: EndpointState | null = null;
  for (const event of [...events].sort((a, b) => a.version - b.version)) {
    if (BigInt(event.position) > upTo) {
      break;
    }
    state = applyEndpointEvent(state, event, event.version);
    lastKnown = state ?? lastKnown;
  }
  return lastKnown
    ? {
        id: lastKnown.id,
        tenantId: lastKnown.tenantId,
        url: lastKnown.url,
        environment: lastKnown.environment,
      }
    : null;
}

/** The data every operational event carries about its endpoint; never a secret. */
interface AboutEndpoint {
  endpoint_id: string;
  url: string;
  environment: EndpointEnvironment;
}

/** An operational event as published and delivered: the platform's envelope (spec 2.2). */
export type OperationalEvent = EventEnvelope & { type: RelayedOperationalEventType };

/** The endpoint whose stream tells what an outbox entry's operational event is about. */
export function endpointIdOf(entry: OutboxEntry): string {
  return entry.data.endpoint_id;
}

/**
 * The loop guard: a delivery of an operational event that is abandoned raises none. Otherwise
 * an endpoint subscribed to `webhook.delivery.abandoned` that fails would be told of its own
 * failure by a delivery that fails in turn, for ever. The endpoint's status still changes (and
 * is told once, as `webhook.endpoint.degraded`): a status change happens once per change.
 */
export function raisesOperationalEvent(entry: OutboxEntry): boolean {
  if (entry.type === DELIVERY_EVENT_TYPES.attempted) {
    return entry.data.abandoned && !isOperationalEventType(entry.data.event_type);
  }
  return true;
}

/**
 * The operational event's id: a function of the log event it comes from (its stream and version
 * name it once in the whole log), so that publishing it again, after a relay died between
 * JetStream's acknowledgement and deleting its outbox row, is a duplicate that JetStream drops
 * (Nats-Msg-Id) and the engine's intake ingests once (ADR 0016).
 */
export function operationalEventId(entry: OutboxEntry): string {
  return derivedId('evt', entry.recordedAt, ['operational', entry.streamId, String(entry.version)]);
}

/**
 * The operational event an outbox entry raises, or null when it raises none (the loop guard).
 * Pure: every relay that publishes the entry builds the same envelope, byte for byte.
 */
export function operationalEventOf(
  entry: OutboxEntry,
  endpoint: EndpointAtTheTime,
): OperationalEvent | null {
  if (!raisesOperationalEvent(entry)) {
    return null;
  }
  const about: AboutEndpoint = {
    endpoint_id: endpoint.id,
    url: endpoint.url,
    environment: endpoint.environment,
  };
  const envelope = (type: RelayedOperationalEventType, data: Record<string, unknown>) => ({
    id: operationalEventId(entry),
    type,
    created_at: entry.recordedAt.toISOString(),
    tenant_id: endpoint.tenantId,
    data: { ...about, ...data },
  });
  switch (entry.type) {
    case ENDPOINT_EVENT_TYPES.degraded:
      return envelope('webhook.endpoint.degraded', {
        reason: entry.data.reason,
        delivery_id: entry.data.delivery_id,
        at: entry.data.at,
      });
    case ENDPOINT_EVENT_TYPES.reactivated:
      return envelope('webhook.endpoint.reactivated', {
        reason: entry.data.reason,
        delivery_id: entry.data.delivery_id,
        at: entry.data.at,
      });
    case ENDPOINT_EVENT_TYPES.disabled:
      return envelope('webhook.endpoint.disabled', {
        reason: entry.data.reason,
        delivery_id: entry.data.delivery_id,
        status_code: entry.data.status_code,
        at: entry.data.at,
      });
    case DELIVERY_EVENT_TYPES.attempted: {
      const attempt = entry.data;
      return envelope('webhook.delivery.abandoned', {
        reason: attempt.status_code === 410 ? 'gone' : 'attempts_exhausted',
        delivery_id: attempt.delivery_id,
        event_id: attempt.event_id,
        event_type: attempt.event_type,
        attempts: attempt.attempt,
        status_code: attempt.status_code,
        error_kind: attempt.error_kind,
        at: attempt.attempted_at,
      });
    }
  }
}
