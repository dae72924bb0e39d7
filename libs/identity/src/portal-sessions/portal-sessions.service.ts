import { newId } from '@svc/contracts';
import { DataSource, EntityManager } from 'typeorm';
import type { ApiKeyEnvironment } from '../api-keys/api-key-format';
import { Principal } from '../principal';
import {
  generatePortalLinkToken,
  generatePortalSessionToken,
  hashPortalToken,
  isPortalLinkToken,
  isPortalSessionToken,
} from './portal-token-format';

export interface PortalLifetimes {
  /** How long a link may wait for its one use. */
  linkTtlMs: number;
  /** How long the session a link opens lasts. */
  sessionTtlMs: number;
}

export interface PortalLinkRequest {
  tenantId: string;
  environment: ApiKeyEnvironment;
  readOnly: boolean;
  returnUrl: string | null;
  /** The API key or access token minting the link. */
  createdBy: string;
}

export interface MintedPortalLink {
  /** The link's id (`pl_…`): what the audit trail names it by. */
  id: string;
  /** The only time the link token exists in clear: handed to the caller, never stored. */
  token: string;
  expiresAt: Date;
  readOnly: boolean;
}

export interface OpenedPortalSession {
  /** The only time the session token exists in clear. */
  token: string;
  expiresAt: Date;
  readOnly: boolean;
  environment: ApiKeyEnvironment;
  tenantId: string;
  returnUrl: string | null;
}

/** Rows expired longer ago than this are deleted: kept a day for anyone looking into a visit. */
const PURGE_AFTER_SECONDS = 86_400;
/** A purge deletes at most this many rows of each table, so that a mint never waits long. */
const PURGE_BATCH = 500;

/**
 * A credential that minted a link and has since been revoked takes its links and sessions with it:
 * revoking an API key stops the consoles it opened at their next request. Access tokens have no
 * row of their own to look at; their sessions last their hour.
 */
const MINTER_NOT_REVOKED = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = ${alias}.created_by AND k.revoked_at IS NOT NULL)`;

interface SessionRow {
  id: string;
  tenant_id: string;
  environment: ApiKeyEnvironment;
  read_only: boolean;
  return_url: string | null;
  expires_at: Date;
}

/**
 * Portal sessions (ADR 0042): a platform's backend mints a one-time link for its tenant's console,
 * the console exchanges it once for a session token, and the Bearer guard authenticates that
 * token against the database on every request (no cache), so that expiry, sign-out and the
 * revocation of the minting key take effect at once.
 */
export class PortalSessionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lifetimes: PortalLifetimes,
  ) {}

  /** Mints a link, in `manager`'s transaction when given (the caller records it with the link). */
  async mintLink(request: PortalLinkRequest, manager?: EntityManager): Promise<MintedPortalLink> {
    const token = generatePortalLinkToken();
    const id = newId('pl');
    const [row] = await (manager ?? this.dataSource).query<{ expires_at: Date }[]>(
      `INSERT INTO portal_links (id, tenant_id, environment, token_hash, read_only, return_url,
                                 created_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))
       RETURNING expires_at`,
      [
        id,
        request.tenantId,
        request.environment,
        hashPortalToken(token),
        request.readOnly,
        request.returnUrl,
        request.createdBy,
        this.lifetimes.linkTtlMs / 1000,
      ],
    );
    // The API has no housekeeping job of its own, and minting is when rows are added: each mint
    // deletes a bounded batch of long-expired rows, so that the tables stay as small as their
    // use. A failed purge loses nothing (the next mint retries) and must not fail the mint.
    await this.purgeExpired().catch(() => undefined);
    return { id, token, expiresAt: row.expires_at, readOnly: request.readOnly };
  }

  /**
   * Uses a link and opens its session in one statement: the UPDATE takes the link only while it
   * is unused and unexpired, and two exchanges of one link at once queue on its row, so exactly
   * one finds it unused. Null for an unknown, used or expired link, without saying which.
   *
   * No throttle: a link token carries 256 random bits, so guessing one is hopeless at any
   * request rate; a throttle would add state and protect nothing.
   */
  async exchange(linkToken: string): Promise<OpenedPortalSession | null> {
    if (!isPortalLinkToken(linkToken)) {
      return null;
    }
    const token = generatePortalSessionToken();
    const [row] = await this.dataSource.query<SessionRow[]>(
      `WITH used AS (
         UPDATE portal_links l SET used_at = now()
          WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > now()
            AND ${MINTER_NOT_REVOKED('l')}
          RETURNING l.id, l.tenant_id, l.environment, l.read_only, l.return_url, l.created_by
       )
       INSERT INTO portal_sessions (id, link_id, tenant_id, environment, token_hash, read_only,
                                    return_url, created_by, expires_at)
       SELECT $2, id, tenant_id, environment, $3, read_only, return_url, created_by,
              now() + make_interval(secs => $4)
         FROM used
       RETURNING id, tenant_id, environment, read_only, return_url, expires_at`,
      [
        hashPortalToken(linkToken),
        newId('ps'),
        hashPortalToken(token),
        this.lifetimes.sessionTtlMs / 1000,
      ],
    );
    if (!row) {
      return null;
    }
    return {
      token,
      expiresAt: row.expires_at,
      readOnly: row.read_only,
      environment: row.environment,
      tenantId: row.tenant_id,
      returnUrl: row.return_url,
    };
  }

  /** The return URL a link was minted with, used or expired or not; null for an unknown link. */
  async returnUrlOfLink(linkToken: string): Promise<string | null> {
    if (!isPortalLinkToken(linkToken)) {
      return null;
    }
    const [row] = await this.dataSource.query<{ return_url: string | null }[]>(
      'SELECT return_url FROM portal_links WHERE token_hash = $1',
      [hashPortalToken(linkToken)],
    );
    return row?.return_url ?? null;
  }

  /** The principal for a presented session token, or null for a malformed, unknown, ended or expired one. */
  async authenticate(presented: string): Promise<Principal | null> {
    if (!isPortalSessionToken(presented)) {
      return null;
    }
    const [row] = await this.dataSource.query<SessionRow[]>(
      `SELECT s.id, s.tenant_id, s.environment, s.read_only
         FROM portal_sessions s
        WHERE s.token_hash = $1 AND s.ended_at IS NULL AND s.expires_at > now()
          AND ${MINTER_NOT_REVOKED('s')}`,
      [hashPortalToken(presented)],
    );
    if (!row) {
      return null;
    }
    return {
      kind: 'portal_session',
      credentialId: row.id,
      tenantId: row.tenant_id,
      // The console manages webhooks and nothing else, whatever the minting credential held.
      scopes: ['webhooks:manage'],
      sandbox: row.environment === 'test',
      readOnly: row.read_only,
    };
  }

  /** Ends a session (sign-out); true when it was still open. Its token fails from the next request. */
  async end(sessionId: string): Promise<boolean> {
    // For UPDATE and DELETE, TypeORM's query() answers [rows, affected count].
    const [, affected] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE portal_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL`,
      [sessionId],
    );
    return affected > 0;
  }

  /** Deletes links and sessions expired for more than a day, a bounded batch of each. */
  async purgeExpired(): Promise<number> {
    let deleted = 0;
    for (const table of ['portal_sessions', 'portal_links']) {
      const [, affected] = await this.dataSource.query<[unknown[], number]>(
        `DELETE FROM ${table}
          WHERE id IN (SELECT id FROM ${table}
                        WHERE expires_at < now() - make_interval(secs => $1)
                        LIMIT $2)`,
        [PURGE_AFTER_SECONDS, PURGE_BATCH],
      );
      deleted += affected;
    }
    return deleted;
  }
}
