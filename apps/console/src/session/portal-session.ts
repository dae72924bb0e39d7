import { dataOf } from '../api/api-failure';
import type { ApiClient } from '../api/api-client';
import type { Credential } from './console-session';
import type { SessionView } from './session-state';

/**
 * A portal session (ADR 0042): the one-time link token from the fragment, exchanged once for a
 * session token that lives in this object only. It is not renewed: when its hour is up, or the
 * API refuses it, the session is over and the page says so.
 */
export async function exchangePortalLink(
  client: ApiClient,
  linkToken: string,
  onExpiry: () => void,
): Promise<{ credential: Credential; session: SessionView }> {
  const exchanged = await dataOf(
    client.POST('/v1/portal-sessions/exchange', { body: { token: linkToken } }),
  );
  const expiresAt = new Date(exchanged.expires_at);
  const credential = new PortalCredential(client, exchanged.session_token, expiresAt, onExpiry);
  return {
    credential,
    session: {
      kind: 'portal',
      tenantId: exchanged.tenant_id,
      environment: exchanged.environment,
      canChange: !exchanged.read_only,
      canRead: true,
      expiresAt,
      returnUrl: exchanged.return_url ?? null,
    },
  };
}

/** setTimeout takes at most 2^31-1 ms; a session of an hour is far below, but be safe. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class PortalCredential implements Credential {
  private sessionToken: string | null;
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(
    private readonly client: ApiClient,
    sessionToken: string,
    expiresAt: Date,
    onExpiry: () => void,
  ) {
    this.sessionToken = sessionToken;
    const remaining = Math.min(Math.max(expiresAt.getTime() - Date.now(), 0), MAX_TIMER_MS);
    this.timer = setTimeout(onExpiry, remaining);
  }

  token(): string | null {
    return this.sessionToken;
  }

  /** Portal sessions are never renewed: a 401 ends them. */
  renewAfterRejection(): Promise<boolean> {
    return Promise.resolve(false);
  }

  async signOut(): Promise<void> {
    try {
      // Sent with the token still held: the client's middleware adds it.
      await this.client.DELETE('/v1/portal-sessions/current');
    } catch {
      // Offline: the session still ends here, and on the server within the hour.
    }
    this.discard();
  }

  discard(): void {
    clearTimeout(this.timer);
    this.sessionToken = null;
  }
}
