import { type EventEnvelope, isOperationalEventType, SubjectScheme } from '@svc/contracts';
import type { EndpointEnvironment } from '@svc/webhook-endpoints';

/**
 * Which stream an intake consumes: the platform's events (`<root>.events.>`), or the service's
 * own operational events (`<root>.ops.>`, ADR 0030), which the engine's relay publishes and
 * tenants' endpoints may subscribe to like any other.
 */
export type IntakeSource = 'platform' | 'operational';

/** The tenant and type a message's subject names, read by the source's subject scheme. */
export function routeOf(
  subjects: SubjectScheme,
  source: IntakeSource,
  subject: string,
): { tenantId: string; type: string } | null {
  return source === 'operational'
    ? subjects.parseOperational(subject)
    : subjects.parseEvent(subject);
}

/**
 * Why an event's type may not come from this source, or null when it may. The `webhook` family
 * is the service's own: a platform publisher cannot make a tenant believe an endpoint of theirs
 * failed, and the ops subjects carry nothing else.
 */
export function reservedTypeProblem(source: IntakeSource, type: string): string | null {
  if (source === 'platform' && isOperationalEventType(type)) {
    return `${type} is one of the webhook service's own event types, which only it raises (on the ops subjects); platform services may not publish it`;
  }
  if (source === 'operational' && !isOperationalEventType(type)) {
    return `${type} is not an operational event type: only webhook.* events travel on the ops subjects`;
  }
  return null;
}

/**
 * Which environment's endpoints receive an event (ADR 0018): the platform's events are live; an
 * operational event goes to the environment of the endpoint it is about (a sandbox endpoint's
 * trouble is told to the tenant's sandbox endpoints only, a live one's to live ones). Null when an
 * operational event names no environment.
 */
export function audienceOf(
  source: IntakeSource,
  envelope: EventEnvelope,
): EndpointEnvironment | null {
  if (source === 'platform') {
    return 'live';
  }
  const environment = envelope.data.environment;
  return environment === 'live' || environment === 'test' ? environment : null;
}
