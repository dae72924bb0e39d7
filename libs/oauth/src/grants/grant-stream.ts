import { Scope } from '@svc/contracts';
import { appendToStream, NewEvent } from '@svc/event-store';
import { EntityManager } from 'typeorm';
import {
  GRANT_EVENT_TYPES,
  GrantParties,
  GrantRevocationReason,
  GrantRevoked,
} from './grant-events';

/**
 * A grant row and its event stream, inside the caller's transaction. The row lock serializes
 * every change to one grant, and the row's stream_version is the stream's expected version.
 */
export interface GrantRow {
  id: string;
  tenant_id: string;
  user_id: string;
  client_id: string;
  scopes: Scope[];
  revoked_at: Date | null;
}

export const grantParties = (grant: GrantRow): GrantParties => ({
  grant_id: grant.id,
  tenant_id: grant.tenant_id,
  user_id: grant.user_id,
  client_id: grant.client_id,
});

export async function lockGrant(manager: EntityManager, grantId: string): Promise<GrantRow> {
  const [grant] = await manager.query<GrantRow[]>(
    `SELECT id, tenant_id, user_id, client_id, scopes, revoked_at
       FROM oauth_grants WHERE id = $1 FOR UPDATE`,
    [grantId],
  );
  if (!grant) {
    throw new Error(`grant ${grantId} does not exist`);
  }
  return grant;
}

/** The grant row must be locked by the caller: it holds the stream's version. */
export async function appendGrantEvents(
  manager: EntityManager,
  grantId: string,
  events: NewEvent[],
): Promise<void> {
  const [rows] = await manager.query<[{ expected: number }[], number]>(
    `UPDATE oauth_grants SET stream_version = stream_version + $2 WHERE id = $1
     RETURNING stream_version - $2 AS expected`,
    [grantId, events.length],
  );
  await appendToStream(manager, grantId, rows[0].expected, events);
}

/**
 * Appends `before` and, unless the grant was revoked already (its first reason stands), revokes
 * it and appends the revocation after them.
 */
export async function revokeLockedGrant(
  manager: EntityManager,
  grant: GrantRow,
  reason: GrantRevocationReason,
  before: NewEvent[],
): Promise<void> {
  if (grant.revoked_at) {
    await appendGrantEvents(manager, grant.id, before);
    return;
  }
  await manager.query(
    `UPDATE oauth_grants SET revoked_at = now(), revoked_reason = $2 WHERE id = $1`,
    [grant.id, reason],
  );
  const revoked: GrantRevoked = { ...grantParties(grant), reason };
  await appendGrantEvents(manager, grant.id, [
    ...before,
    { type: GRANT_EVENT_TYPES.revoked, data: { ...revoked } },
  ]);
}
