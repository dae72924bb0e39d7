import { accessTokenClaims } from '../auth/access-token-claims';
import type { ConsoleClientConfig } from '../auth/console-client-config';
import { refreshTokens, revokeToken, TokenSet } from '../auth/token-endpoint';
import { ApiFailure } from '../api/api-failure';
import type { Credential } from './console-session';
import type { SessionView } from './session-state';

/** Refresh this long before the access token expires, so calls never meet an expired one. */
const REFRESH_AHEAD_MS = 60_000;
/** After a refresh that got no answer (offline), try again this much later. */
const RETRY_MS = 30_000;
const MANAGE_SCOPE = 'webhooks:manage';

/** What the header and the pages show for a signed-in user. */
export function userSessionView(tokens: TokenSet): SessionView {
  const canManage = tokens.scopes.includes(MANAGE_SCOPE);
  return {
    kind: 'user',
    tenantId: accessTokenClaims(tokens.accessToken).tenantId,
    // Access tokens act on live objects (docs/api.md, "Rules on registration").
    environment: 'live',
    canChange: canManage,
    canRead: canManage,
    expiresAt: null,
    returnUrl: null,
  };
}

/**
 * A signed-in user's tokens, in memory only. The access token is refreshed before it expires,
 * and once after a 401. The refresh token rotates: each refresh consumes it and returns the next,
 * and presenting a consumed one revokes the whole grant, so refreshes never overlap: every caller
 * shares the one in flight.
 */
export class UserCredential implements Credential {
  private accessToken: string | null;
  private refreshToken: string | null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refreshing: Promise<boolean> | null = null;

  constructor(
    private readonly config: ConsoleClientConfig,
    tokens: TokenSet,
    private readonly onSessionLost: () => void,
  ) {
    this.accessToken = tokens.accessToken;
    this.refreshToken = tokens.refreshToken;
    this.scheduleRefresh(tokens.expiresIn * 1000 - REFRESH_AHEAD_MS);
  }

  token(): string | null {
    return this.accessToken;
  }

  renewAfterRejection(rejectedToken: string): Promise<boolean> {
    if (this.accessToken !== null && rejectedToken !== this.accessToken) {
      // Another call already refreshed while this one was out: just send it again.
      return Promise.resolve(true);
    }
    return this.refresh();
  }

  async signOut(): Promise<void> {
    const token = this.refreshToken ?? this.accessToken;
    this.discard();
    if (token) {
      // Revoking the refresh token revokes its grant, access tokens included. Best effort: the
      // tokens are gone from this page either way.
      await revokeToken(this.config, token).catch(() => undefined);
    }
  }

  discard(): void {
    clearTimeout(this.timer);
    this.accessToken = null;
    this.refreshToken = null;
  }

  private scheduleRefresh(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        void this.refresh();
      },
      Math.max(delayMs, 5_000),
    );
  }

  private refresh(): Promise<boolean> {
    this.refreshing ??= this.refreshOnce().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refreshOnce(): Promise<boolean> {
    const refreshToken = this.refreshToken;
    if (!refreshToken) {
      return false;
    }
    try {
      const tokens = await refreshTokens(this.config, refreshToken);
      if (this.refreshToken !== refreshToken) {
        return false; // signed out meanwhile
      }
      this.accessToken = tokens.accessToken;
      this.refreshToken = tokens.refreshToken;
      this.scheduleRefresh(tokens.expiresIn * 1000 - REFRESH_AHEAD_MS);
      return true;
    } catch (error) {
      if (error instanceof ApiFailure && error.status === null) {
        // No answer: the refresh token was not consumed; try again a little later.
        this.scheduleRefresh(RETRY_MS);
        return false;
      }
      // The grant is gone (revoked, expired, or its refresh token reused): signed out.
      this.discard();
      this.onSessionLost();
      return false;
    }
  }
}
