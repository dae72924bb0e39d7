import type { EventType } from './event-types';
import { EVENT_TYPES } from './event-types';

/** The body of every webhook delivery (spec 2.2), as publishers put it on NATS. */
export interface EventEnvelope<TData extends Record<string, unknown> = Record<string, unknown>> {
  /** `evt_` + identifier; also the Nats-Msg-Id, so JetStream drops a republished duplicate. */
  id: string;
  type: EventType;
  /** ISO 8601 UTC. */
  created_at: string;
  /** `ten_` + identifier. */
  tenant_id: string;
  /** The full resource object for the event type. */
  data: TData;
}

/** JSON Schema (draft 2020-12) of the envelope; the engine validates every message against it. */
export const EVENT_ENVELOPE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:svc:schema:event-envelope:v1',
  title: 'svc event envelope',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'created_at', 'tenant_id', 'data'],
  properties: {
    id: { type: 'string', pattern: '^evt_[0-9A-Za-z_-]{1,64}$' },
    type: { type: 'string', enum: [...EVENT_TYPES] },
    created_at: { type: 'string', format: 'date-time', pattern: 'Z$' },
    tenant_id: { type: 'string', pattern: '^ten_[0-9a-z]{1,64}$' },
    data: { type: 'object' },
  },
} as const;
