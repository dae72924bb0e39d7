export const DEFAULT_SUBJECT_ROOT = 'svc';

/**
 * Why the engine refused a message, as the dead-letter subject (`svc.deadletter.<reason>`), the
 * `Svc-Rejection-Reason` header and the `event.rejected` record name it.
 */
export const REJECTION_REASONS = [
  'invalid-json',
  'invalid-envelope',
  'subject-mismatch',
  /** The tenant already published an event with this id and another body. */
  'conflicting-duplicate',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** Header of a dead-lettered message naming why the engine refused it. */
export const REJECTION_REASON_HEADER = 'Svc-Rejection-Reason';
export const REJECTION_DETAIL_HEADER = 'Svc-Rejection-Detail';
export const ORIGINAL_SUBJECT_HEADER = 'Svc-Original-Subject';

/**
 * The NATS subjects of one deployment, under a root that is `svc` unless configured otherwise
 * (so that environments, or concurrent test runs, can share a NATS cluster):
 * - events: `svc.events.<tenant_id>.<type>`; the type keeps its dot (`svc.events.ten_x.alert.created`);
 * - dead letters: `svc.deadletter.<reason>`;
 * - endpoint-changed notices (core NATS): `svc.control.webhook-endpoints.changed`.
 */
export class SubjectScheme {
  readonly eventsFilter: string;
  readonly deadLetterFilter: string;
  readonly endpointChanged: string;
  private readonly eventsPrefix: string;

  constructor(readonly root: string = DEFAULT_SUBJECT_ROOT) {
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(root)) {
      throw new Error(`"${root}" is not a NATS subject root`);
    }
    this.eventsPrefix = `${root}.events.`;
    this.eventsFilter = `${root}.events.>`;
    this.deadLetterFilter = `${root}.deadletter.>`;
    this.endpointChanged = `${root}.control.webhook-endpoints.changed`;
  }

  event(tenantId: string, type: string): string {
    return `${this.eventsPrefix}${tenantId}.${type}`;
  }

  deadLetter(reason: string): string {
    return `${this.root}.deadletter.${reason}`;
  }

  /** The tenant and type an event subject names, or null when it is not one. */
  parseEvent(subject: string): { tenantId: string; type: string } | null {
    if (!subject.startsWith(this.eventsPrefix)) {
      return null;
    }
    const [tenantId, ...type] = subject.slice(this.eventsPrefix.length).split('.');
    return tenantId && type.length > 0 && type.every((part) => part.length > 0)
      ? { tenantId, type: type.join('.') }
      : null;
  }
}
