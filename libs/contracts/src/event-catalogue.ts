import { EVENT_TYPES, EventFamily, EventType } from './event-types';

/** A JSON Schema (2020-12) object, as the catalogue publishes it. */
export type JsonSchema = Record<string, unknown>;

export interface EventTypeEntry {
  type: EventType;
  family: EventFamily;
  description: string;
  /**
   * The shape of the envelope's `data` for this type: the full resource object (spec 2.2), or
   * for the `webhook` family what the service says about one of the tenant's endpoints.
   */
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

/**
 * The data of the service's own events (ADR 0030): about one endpoint of the tenant, as the log
 * stood when the change was recorded. `url` is the endpoint's; no secret is ever carried.
 */
const operational = (required: string[], properties: Record<string, unknown>): JsonSchema => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['endpoint_id', 'url', 'environment', ...required, 'at'],
  properties: {
    endpoint_id: { type: 'string', pattern: '^wh_' },
    url: { type: 'string', format: 'uri' },
    environment: {
      enum: ['live', 'test'],
      description: 'The environment of the endpoint (ADR 0018); only that environment is told',
    },
    ...properties,
    at: { ...TIMESTAMP, description: 'When the change was recorded' },
  },
  additionalProperties: true,
});

const DELIVERY_ID = { type: 'string', pattern: '^del_' };
const STATUS_CODE = { type: 'integer', minimum: 100, maximum: 599 };

const ENDPOINT_DEGRADED = operational(['reason', 'delivery_id'], {
  reason: { const: 'delivery_abandoned' },
  delivery_id: { ...DELIVERY_ID, description: 'The abandoned delivery that degraded it' },
});
const ENDPOINT_REACTIVATED = operational(['reason', 'delivery_id'], {
  reason: {
    enum: ['delivery_succeeded', 'recovered'],
    description: 'A delivery to it succeeded, or POST /v1/webhooks/{id}/recover was called',
  },
  delivery_id: {
    anyOf: [DELIVERY_ID, { type: 'null' }],
    description: 'The delivery that succeeded; null after a recover',
  },
});
const ENDPOINT_DISABLED = operational(['reason', 'delivery_id', 'status_code'], {
  reason: { const: 'gone' },
  delivery_id: { ...DELIVERY_ID, description: 'The delivery its receiver answered 410 to' },
  status_code: { const: 410 },
});
const DELIVERY_ABANDONED = operational(
  ['reason', 'delivery_id', 'event_id', 'event_type', 'attempts'],
  {
    reason: {
      enum: ['attempts_exhausted', 'gone'],
      description: 'Its last attempt failed, or the receiver answered 410 Gone',
    },
    delivery_id: DELIVERY_ID,
    event_id: { type: 'string', pattern: '^evt_' },
    event_type: { type: 'string' },
    attempts: { type: 'integer', minimum: 1, description: 'Attempts made, over its whole life' },
    status_code: {
      anyOf: [STATUS_CODE, { type: 'null' }],
      description: 'The status of the last answer; null when none came (see error_kind)',
    },
    error_kind: {
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: 'Why the last attempt failed when no answer came (timeout, connection ...)',
    },
  },
);
const TEST = resource('endpoint_id', {
  message: { type: 'string' },
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
  'webhook.endpoint.degraded': [
    'webhook',
    'One of your endpoints became degraded: a delivery to it was abandoned.',
    ENDPOINT_DEGRADED,
  ],
  'webhook.endpoint.reactivated': [
    'webhook',
    'One of your endpoints is active again: a delivery succeeded, or it was recovered.',
    ENDPOINT_REACTIVATED,
  ],
  'webhook.endpoint.disabled': [
    'webhook',
    'One of your endpoints was disabled: its receiver answered 410 Gone. Recover it to resume.',
    ENDPOINT_DISABLED,
  ],
  'webhook.delivery.abandoned': [
    'webhook',
    'A delivery to one of your endpoints was abandoned after its last attempt failed.',
    DELIVERY_ABANDONED,
  ],
  'webhook.test': ['webhook', 'A test event, sent to an endpoint on request.', TEST],
};

/**
 * The catalogue of event types (ADR 0004): what `GET /v1/event-types` lists and what
 * registration accepts; the one source with EVENT_TYPES.
 */
export const EVENT_CATALOGUE: readonly EventTypeEntry[] = EVENT_TYPES.map((type) => {
  const [family, description, dataSchema] = DESCRIPTIONS[type];
  return { type, family, description, dataSchema };
});
