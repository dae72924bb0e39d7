/**
 * The two values a user sign-in must carry across the trip to the authorization server and back:
 * the PKCE verifier and the state (plus the console page to return to).
 *
 * They are the one thing the console keeps in web storage, and only in sessionStorage (this tab,
 * gone when it closes), because a full-page redirect loses memory. That is acceptable where a
 * token would not be: neither is a credential by itself (the verifier is worth something only
 * with a code issued for this client and redirect URI within 60 s, and is single use); they are
 * written just before leaving and removed the moment the callback is read, whatever it says.
 * Access and refresh tokens are never written anywhere but memory.
 */
export const PENDING_SIGN_IN_KEY = 'svc-console.pending-sign-in';

export interface PendingSignIn {
  state: string;
  codeVerifier: string;
  /** A console path (`/console/…`) to show after signing in. */
  returnTo: string;
}

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Only the console's own paths: never a redirect elsewhere, whatever the storage holds. */
export function safeReturnPath(path: unknown): string {
  return typeof path === 'string' && /^\/console\/(?!\/)/.test(path) && !path.includes('\\')
    ? path
    : '/console/';
}

export function savePendingSignIn(storage: Storage, pending: PendingSignIn): void {
  storage.setItem(PENDING_SIGN_IN_KEY, JSON.stringify(pending));
}

/** Reads and removes the pending sign-in: a second read finds nothing (single use). */
export function takePendingSignIn(storage: Storage): PendingSignIn | null {
  const saved = storage.getItem(PENDING_SIGN_IN_KEY);
  storage.removeItem(PENDING_SIGN_IN_KEY);
  if (!saved) {
    return null;
  }
  try {
    const value = JSON.parse(saved) as Partial<PendingSignIn>;
    if (typeof value.state !== 'string' || typeof value.codeVerifier !== 'string') {
      return null;
    }
    return {
      state: value.state,
      codeVerifier: value.codeVerifier,
      returnTo: safeReturnPath(value.returnTo),
    };
  } catch {
    return null;
  }
}
