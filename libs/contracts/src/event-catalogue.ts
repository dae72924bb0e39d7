import { EVENT_TYPES, EventFamily, EventType } from './event-types';

/** A JSON Schema (2020-12) object, as the catalogue publishes it. */
export type JsonSchema = Record<string, unknown>;

export interface EventTypeEntry {
  type: EventType;
  family: EventFamily;
  description: string;
  /** The shape of the envelope's `data` for this type: the full resource object (spec 2.2). */
  dataSchema: JsonSchema;
}

const SEVERITY = { type: 'string', enum: ['low', 'medium', 'high', 'critical'] };
const TIMESTAMP = { type: 'string', format: 'date-time' };

/** Every resource object carries its id; other fields are the resource's own and may grow. */
const resource = (id: string, properties: Record<string, unknown>): JsonSchema => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: [id],
  properties: { [id]: { type: 'string', minLength: 1 }, ...properties },
  additionalProperties: true,
});

const ALERT = resource('alert_id', {
  title: { type: 'string' },
  severity: SEVERITY,
  status: { type: 'string', enum: ['open', 'acknowledged', 'escalated', 'closed'] },
  source: { type: 'string' },
  detected_at: TIMESTAMP,
});
const INCIDENT = resource('incident_id', {
  title: { type: 'string' },
  severity: SEVERITY,
  status: { type: 'string', enum: ['open', 'contained', 'resolved'] },
  alert_ids: { type: 'array', items: { type: 'string' } },
  opened_at: TIMESTAMP,
});
const COMPLIANCE = resource('check_id', {
  framework: { type: 'string' },
  control: { type: 'string' },
  status: { type: 'string', enum: ['passing', 'failing'] },
  evaluated_at: TIMESTAMP,
});

const DESCRIPTIONS: Record<EventType, [EventFamily, string, JsonSchema]> = {
  'alert.created': ['alert', 'A security alert was raised.', ALERT],
  'alert.severity_changed': ['alert', "An alert's severity was raised or lowered.", ALERT],
  'alert.acknowledged': ['alert', 'An analyst acknowledged an alert.', ALERT],
  'alert.escalated': ['alert', 'An alert was escalated.', ALERT],
  'alert.closed': ['alert', 'An alert was closed.', ALERT],
  'incident.created': ['incident', 'An incident was opened.', INCIDENT],
  'incident.contained': ['incident', 'An incident was contained.', INCIDENT],
  'incident.resolved': ['incident', 'An incident was resolved.', INCIDENT],
  'compliance.check_failed': ['compliance', 'A compliance check failed.', COMPLIANCE],
  'compliance.posture_changed': [
    'compliance',
    "A tenant's compliance posture changed.",
    COMPLIANCE,
  ],
};

/**
 * The catalogue of event types (ADR 0004): what `GET /v1/event-types` lists and what
 * registration accepts; the one source with EVENT_TYPES.
 */
export const EVENT_CATALOGUE: readonly EventTypeEntry[] = EVENT_TYPES.map((type) => {
  const [family, description, dataSchema] = DESCRIPTIONS[type];
  return { type, family, description, dataSchema };
});
