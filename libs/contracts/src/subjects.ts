/**
 * NATS subjects. Events: `svc.events.<tenant_id>.<type>` (the type keeps its dot, so
 * `svc.events.ten_x.alert.created`); the engine's consumer filters `svc.events.>`.
 */
export const EVENTS_SUBJECT_PREFIX = 'svc.events';
export const EVENTS_SUBJECT_FILTER = `${EVENTS_SUBJECT_PREFIX}.>`;

/** Messages the engine could not accept, with the reason in the `Svc-Rejection-Reason` header. */
export const DEAD_LETTER_SUBJECT_PREFIX = 'svc.deadletter';
export const DEAD_LETTER_SUBJECT_FILTER = `${DEAD_LETTER_SUBJECT_PREFIX}.>`;
export const deadLetterSubject = (reason: string) => `${DEAD_LETTER_SUBJECT_PREFIX}.${reason}`;
export const REJECTION_REASON_HEADER = 'Svc-Rejection-Reason';
export const REJECTION_DETAIL_HEADER = 'Svc-Rejection-Detail';
export const ORIGINAL_SUBJECT_HEADER = 'Svc-Original-Subject';

/** Core NATS notice the API publishes after changing an endpoint; body `{ tenant_id, endpoint_id }`. */
export const ENDPOINT_CHANGED_SUBJECT = 'svc.control.webhook-endpoints.changed';

export function eventSubject(tenantId: string, type: string): string {
  return `${EVENTS_SUBJECT_PREFIX}.${tenantId}.${type}`;
}

/** The tenant and type a subject names, or null when it is not an event subject. */
export function parseEventSubject(subject: string): { tenantId: string; type: string } | null {
  const prefix = `${EVENTS_SUBJECT_PREFIX}.`;
  if (!subject.startsWith(prefix)) {
    return null;
  }
  const [tenantId, ...type] = subject.slice(prefix.length).split('.');
  return tenantId && type.length > 0 && type.every((part) => part.length > 0)
    ? { tenantId, type: type.join('.') }
    : null;
}
