import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EVENT_ENVELOPE_SCHEMA, type EventEnvelope } from './event-envelope';

export type EnvelopeValidation =
  { ok: true; envelope: EventEnvelope } | { ok: false; problems: string[] };

/**
 * Ajv's own wording for a regular expression is the expression itself, which tells a publisher
 * nothing; these say what the field must look like instead.
 */
const CLEARER_MESSAGES: Record<string, string> = {
  '/id pattern': 'must be evt_ followed by 1 to 64 letters, digits, _ or -',
  '/tenant_id pattern': 'must be ten_ followed by 1 to 64 lowercase letters or digits',
  '/created_at pattern': 'must be in UTC (end with Z)',
  '/created_at format': 'must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z',
};

let compiled: ValidateFunction | undefined;

/** Compiling generates code, so it happens once per process, on first use. */
function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv, ['date-time']);
    compiled = ajv.compile(EVENT_ENVELOPE_SCHEMA);
  }
  return compiled;
}

/** Checks a parsed message against the envelope schema (spec 2.2), naming every problem found. */
export function validateEnvelope(value: unknown): EnvelopeValidation {
  const validate = validator();
  if (validate(value)) {
    return { ok: true, envelope: value as EventEnvelope };
  }
  return { ok: false, problems: (validate.errors ?? []).map(describe) };
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    return `/${String(params.missingProperty)}: is required`;
  }
  if (error.keyword === 'additionalProperties') {
    return `/${String(params.additionalProperty)}: is not an envelope field`;
  }
  const path = error.instancePath === '' ? '(envelope)' : error.instancePath;
  const message =
    CLEARER_MESSAGES[`${error.instancePath} ${error.keyword}`] ?? error.message ?? 'is invalid';
  return `${path}: ${message}`;
}
