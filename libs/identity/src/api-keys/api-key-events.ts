import type { Scope } from '@svc/contracts';
import type { ApiKeyEnvironment } from './api-key-format';

/**
 * The events of an API key's stream (stream id = key id, `key_…`): who may call the API, and
 * since when, for the tenant's audit trail (ADR 0047). Never the key or its hash: the hint is what
 * a person recognises it by.
 */
export const API_KEY_EVENT_TYPES = {
  created: 'api_key.created',
  revoked: 'api_key.revoked',
} as const;

export interface ApiKeyCreated {
  key_id: string;
  tenant_id: string;
  environment: ApiKeyEnvironment;
  scopes: Scope[];
  /** The key's last characters, as `svc keys list` shows them. */
  key_hint: string;
  created_at: string;
}

export interface ApiKeyRevoked {
  key_id: string;
  tenant_id: string;
  revoked_at: string;
}

export type ApiKeyEvent =
  | { type: typeof API_KEY_EVENT_TYPES.created; data: ApiKeyCreated }
  | { type: typeof API_KEY_EVENT_TYPES.revoked; data: ApiKeyRevoked };

/** Who changed the key: the CLI's operator, by default. */
export interface KeyChangeActor {
  kind: 'operator';
  /** The operating-system user who ran the command, when known. */
  id: string | null;
}
