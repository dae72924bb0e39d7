import { API_KEY_EVENT_TYPES } from '@svc/identity';
import { ENDPOINT_EVENT_TYPES } from '@svc/webhook-endpoints';
import { REQUESTED_ACTION_TYPES } from './requested-actions';

/**
 * The audit trail's view of the log (ADR 0047): each management action is one event type, and
 * each entry is built from fixed fields picked one by one out of that event. Event data is never
 * passed through, so that a secret's ciphertext, a header value or whatever a future event adds
 * cannot reach the trail without someone choosing to show it here.
 */
export const AUDIT_ACTION_EVENT_TYPES = {
  'endpoint.registered': ENDPOINT_EVENT_TYPES.registered,
  'endpoint.updated': ENDPOINT_EVENT_TYPES.updated,
  'endpoint.deleted': ENDPOINT_EVENT_TYPES.deleted,
  'endpoint.secret_rotated': ENDPOINT_EVENT_TYPES.secretRotated,
  'endpoint.test_sent': REQUESTED_ACTION_TYPES.testRequested,
  'endpoint.replay_requested': REQUESTED_ACTION_TYPES.replayRequested,
  'endpoint.recovered': REQUESTED_ACTION_TYPES.recoveryRequested,
  'portal_session.minted': REQUESTED_ACTION_TYPES.portalSessionMinted,
  'api_key.created': API_KEY_EVENT_TYPES.created,
  'api_key.revoked': API_KEY_EVENT_TYPES.revoked,
} as const;

export type AuditAction = keyof typeof AUDIT_ACTION_EVENT_TYPES;

export const AUDIT_ACTIONS = Object.keys(AUDIT_ACTION_EVENT_TYPES) as AuditAction[];

/** The event types the trail reads: those of the partial index events_audit_idx. */
export const AUDIT_EVENT_TYPES: readonly string[] = Object.values(AUDIT_ACTION_EVENT_TYPES);

const ACTION_OF_TYPE = new Map<string, AuditAction>(
  AUDIT_ACTIONS.map((action) => [AUDIT_ACTION_EVENT_TYPES[action], action]),
);

export function isAuditAction(value: string): value is AuditAction {
  return Object.prototype.hasOwnProperty.call(AUDIT_ACTION_EVENT_TYPES, value);
}

/**
 * An entry's id: the event's log position, prefixed. Opaque to clients (they must not compute
 * with it), stable (the log is append-only) and unique across the trail, since each action is
 * exactly one event.
 */
export function auditEntryId(position: string): string {
  return `aud_${position}`;
}

/** A row of `events` as the trail's query reads it (position is a bigint: pg answers a string). */
export interface AuditEventRow {
  position: string;
  stream_id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

export type AuditTargetType = 'endpoint' | 'api_key' | 'portal_link';

export interface AuditActor {
  /** `api_key`, `access_token`, `portal_session`, `operator` (the CLI); `unknown` if not recorded. */
  kind: string;
  id: string | null;
  key_hint?: string;
  user_id?: string;
  client_id?: string;
}

export type AuditDetailValue = string | boolean | string[] | null;

export interface AuditEntry {
  id: string;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  actor: AuditActor;
  client_address: string | null;
  request_id: string | null;
  occurred_at: string;
  details: Record<string, AuditDetailValue>;
}

type Fields = Record<string, unknown>;

const isRecord = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const textsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** What the event says of who acted; events recorded before ADR 0047 carry only kind and id. */
export function actorOf(metadata: Fields): AuditActor {
  const actor = isRecord(metadata.actor) ? metadata.actor : {};
  const keyHint = textOf(actor.key_hint);
  const userId = textOf(actor.user_id);
  const clientId = textOf(actor.client_id);
  return {
    kind: textOf(actor.kind) ?? 'unknown',
    id: textOf(actor.id),
    ...(keyHint !== null && { key_hint: keyHint }),
    ...(userId !== null && { user_id: userId }),
    ...(clientId !== null && { client_id: clientId }),
  };
}

/**
 * The names of the fields an update changed, never their values; `secret_ciphertext` is shown as
 * `secret`, which is what the client changed.
 */
export function changedFieldsOf(changes: unknown): string[] {
  if (!isRecord(changes)) {
    return [];
  }
  return Object.keys(changes).map((field) => (field === 'secret_ciphertext' ? 'secret' : field));
}

/** The range of a replay: one delivery, or an endpoint's deliveries from one time to another. */
function replayDetailsOf(data: Fields): Record<string, AuditDetailValue> {
  const deliveryId = textOf(data.delivery_id);
  if (deliveryId !== null) {
    return { delivery_id: deliveryId };
  }
  return { from: textOf(data.from), to: textOf(data.to) };
}

/** Each action's details, each field picked by name. */
const DETAILS_OF: Record<AuditAction, (data: Fields) => Record<string, AuditDetailValue>> = {
  'endpoint.registered': (data) => ({
    url: textOf(data.url),
    events: textsOf(data.events),
    // The type only (ADR 0048): what the receiver demands, never a part of it.
    auth_type: isRecord(data.auth) ? textOf(data.auth.type) : null,
  }),
  'endpoint.updated': (data) => ({ changes: changedFieldsOf(data.changes) }),
  'endpoint.deleted': () => ({}),
  'endpoint.secret_rotated': (data) => ({
    previous_secret_expires_at: textOf(data.previous_secret_expires_at),
  }),
  'endpoint.test_sent': (data) => ({ delivery_id: textOf(data.delivery_id) }),
  'endpoint.replay_requested': replayDetailsOf,
  'endpoint.recovered': (data) => ({
    redrive_abandoned_since: textOf(data.redrive_abandoned_since),
  }),
  'portal_session.minted': (data) => ({
    read_only: data.read_only === true,
    return_url: textOf(data.return_url),
    expires_at: textOf(data.expires_at),
  }),
  'api_key.created': (data) => ({ scopes: textsOf(data.scopes), key_hint: textOf(data.key_hint) }),
  'api_key.revoked': () => ({}),
};

/** What the action acted on: the endpoint, the key, or the portal link minted. */
function targetOf(action: AuditAction, row: AuditEventRow): AuditEntry['target'] {
  if (action === 'portal_session.minted') {
    return { type: 'portal_link', id: textOf(row.data.link_id) ?? row.stream_id };
  }
  if (action === 'api_key.created' || action === 'api_key.revoked') {
    return { type: 'api_key', id: textOf(row.data.key_id) ?? row.stream_id };
  }
  return { type: 'endpoint', id: textOf(row.data.endpoint_id) ?? row.stream_id };
}

/** The entry of an event of the log; null for an event that is no audit action. */
export function auditEntryOf(row: AuditEventRow): AuditEntry | null {
  const action = ACTION_OF_TYPE.get(row.type);
  if (action === undefined) {
    return null;
  }
  const data = isRecord(row.data) ? row.data : {};
  const metadata = isRecord(row.metadata) ? row.metadata : {};
  return {
    id: auditEntryId(row.position),
    action,
    target: targetOf(action, { ...row, data }),
    actor: actorOf(metadata),
    client_address: textOf(metadata.client_address),
    request_id: textOf(metadata.request_id),
    occurred_at: row.recorded_at.toISOString(),
    details: DETAILS_OF[action](data),
  };
}
