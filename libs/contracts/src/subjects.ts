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
  /**
   * A `webhook.*` event on the events subject: that family is the webhook service's own, raised
   * only by the engine on the ops subject (ADR 0030); or another family on the ops subject.
   */
  'reserved-type',
  /** Larger than ENVELOPE_LIMITS.maxBytes (envelope-text.ts). */
  'envelope-too-large',
  /** Nested deeper than ENVELOPE_LIMITS.maxDepth. */
  'envelope-too-deep',
  /** A member name given twice in one object: parsers disagree on what it says (I-JSON). */
  'duplicate-member',
  /** Its handling failed alike on every delivery, a bounded number of times (not the database). */
  'handling-failed',
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
 * - operational events, the service's own (ADR 0030): `svc.ops.<tenant_id>.<type>`
 *   (`svc.ops.ten_x.webhook.endpoint.degraded`);
 * - dead letters: `svc.deadletter.<reason>`;
 * - endpoint-changed notices (core NATS): `svc.control.webhook-endpoints.changed`.
 */
export class SubjectScheme {
  readonly eventsFilter: string;
  readonly operationalFilter: string;
  readonly deadLetterFilter: string;
  readonly endpointChanged: string;
  private readonly eventsPrefix: string;
  private readonly operationalPrefix: string;

  constructor(readonly root: string = DEFAULT_SUBJECT_ROOT) {
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(root)) {
      throw new Error(`"${root}" is not a NATS subject root`);
    }
    this.eventsPrefix = `${root}.events.`;
    this.eventsFilter = `${root}.events.>`;
    this.operationalPrefix = `${root}.ops.`;
    this.operationalFilter = `${root}.ops.>`;
    this.deadLetterFilter = `${root}.deadletter.>`;
    this.endpointChanged = `${root}.control.webhook-endpoints.changed`;
  }

  event(tenantId: string, type: string): string {
    return `${this.eventsPrefix}${tenantId}.${type}`;
  }

  operational(tenantId: string, type: string): string {
    return `${this.operationalPrefix}${tenantId}.${type}`;
  }

  /** Every operational event of one tenant, for a consumer that follows only that tenant. */
  operationalFilterOf(tenantId: string): string {
    return `${this.operationalPrefix}${tenantId}.>`;
  }

  deadLetter(reason: string): string {
    return `${this.root}.deadletter.${reason}`;
  }

  /** The tenant and type an event subject names, or null when it is not one. */
  parseEvent(subject: string): { tenantId: string; type: string } | null {
    return parseUnder(this.eventsPrefix, subject);
  }

  /** The tenant and type an operational event subject names, or null when it is not one. */
  parseOperational(subject: string): { tenantId: string; type: string } | null {
    return parseUnder(this.operationalPrefix, subject);
  }
}

function parseUnder(prefix: string, subject: string): { tenantId: string; type: string } | null {
  if (!subject.startsWith(prefix)) {
    return null;
  }
  const [tenantId, ...type] = subject.slice(prefix.length).split('.');
  return tenantId && type.length > 0 && type.every((part) => part.length > 0)
    ? { tenantId, type: type.join('.') }
    : null;
}
