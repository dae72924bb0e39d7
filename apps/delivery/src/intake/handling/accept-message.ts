import {
  ENVELOPE_LIMITS,
  envelopeTextProblem,
  EventEnvelope,
  RejectionReason,
  SubjectScheme,
  validateEnvelope,
} from '@svc/contracts';
import type { EndpointEnvironment } from '@svc/webhook-endpoints';
import {
  audienceOf,
  IntakeSource,
  reservedTypeProblem,
  routeOf,
} from '../../operational-events/intake-source';

export interface AcceptedEvent {
  envelope: EventEnvelope;
  /** The envelope exactly as received: these bytes are stored, signed and sent. */
  body: string;
  /** The environment whose endpoints receive it. */
  audience: EndpointEnvironment;
}

export interface Rejection {
  reason: RejectionReason;
  detail: string;
}

/**
 * The event a message carries, or why it is not one the engine may deliver: too large, not JSON,
 * nested too deep or with a member named twice (checked before anything walks the value), not a
 * valid envelope, a subject that names another tenant or type, a type reserved to another
 * source, an operational event that names no environment.
 */
export function acceptMessage(
  message: { data: Uint8Array; subject: string },
  subjects: SubjectScheme,
  source: IntakeSource,
): AcceptedEvent | Rejection {
  // A view of the message's bytes, not a copy of them.
  const { buffer, byteOffset, byteLength } = message.data;
  if (byteLength > ENVELOPE_LIMITS.maxBytes) {
    return {
      reason: 'envelope-too-large',
      detail: `${byteLength} bytes; an envelope has at most ${ENVELOPE_LIMITS.maxBytes}`,
    };
  }
  const body = Buffer.from(buffer, byteOffset, byteLength).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { reason: 'invalid-json', detail: (error as Error).message };
  }
  const textProblem = envelopeTextProblem(body);
  if (textProblem) {
    return textProblem;
  }
  const validation = validateEnvelope(parsed);
  if (!validation.ok) {
    return { reason: 'invalid-envelope', detail: validation.problems.join('; ') };
  }
  const routed = routeOf(subjects, source, message.subject);
  const envelope = validation.envelope;
  if (!routed || routed.tenantId !== envelope.tenant_id || routed.type !== envelope.type) {
    return {
      reason: 'subject-mismatch',
      detail: `subject ${message.subject} does not match tenant_id ${envelope.tenant_id} and type ${envelope.type}`,
    };
  }
  const reserved = reservedTypeProblem(source, envelope.type);
  if (reserved) {
    return { reason: 'reserved-type', detail: reserved };
  }
  const audience = audienceOf(source, envelope);
  if (!audience) {
    return { reason: 'invalid-envelope', detail: '/data/environment: must be live or test' };
  }
  return { envelope, body, audience };
}
