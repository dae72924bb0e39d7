import type { CallbackQuery } from '../boot/launch-address';
import {
  authorizationUrl,
  ConsoleClientConfig,
  isExpectedIssuer,
  parseConsoleClientConfig,
} from './console-client-config';
import { savePendingSignIn, takePendingSignIn } from './pending-sign-in';
import { randomUrlSafeString, s256Challenge } from './pkce';
import { exchangeAuthorizationCode, TokenSet } from './token-endpoint';

/** The console's OAuth settings, served by the API beside the console. */
export async function loadConsoleClientConfig(): Promise<ConsoleClientConfig> {
  const response = await fetch('/console/config.json', { cache: 'no-store' });
  if (!response.ok) {
    throw new Error(`GET /console/config.json answered ${response.status}`);
  }
  return parseConsoleClientConfig(await response.json());
}

/** Leaves for the authorization server's sign-in page (authorization code with PKCE S256). */
export async function beginSignIn(config: ConsoleClientConfig, returnTo: string): Promise<void> {
  const codeVerifier = randomUrlSafeString(crypto);
  const state = randomUrlSafeString(crypto);
  const codeChallenge = await s256Challenge(codeVerifier, crypto.subtle);
  // The one use of web storage: the verifier and state across the redirect (pending-sign-in.ts).
  // eslint-disable-next-line no-restricted-globals
  savePendingSignIn(sessionStorage, { state, codeVerifier, returnTo });
  location.assign(authorizationUrl(config, { state, codeChallenge }));
}

/** Why a callback gives no tokens, in words for the sign-in page. */
export class SignInRefused extends Error {}

const REFUSALS: Record<string, string> = {
  access_denied: 'Access was not allowed, so you are not signed in.',
  invalid_scope: 'Your account may not manage webhooks, so the console cannot sign you in.',
};

/**
 * The end of the trip: checks the callback against the pending sign-in (state, RFC 9207 issuer)
 * and exchanges the code. The pending values are removed first, whatever happens next.
 */
export async function completeSignIn(
  config: ConsoleClientConfig,
  callback: CallbackQuery,
): Promise<{ tokens: TokenSet; returnTo: string }> {
  // eslint-disable-next-line no-restricted-globals -- read once and removed (pending-sign-in.ts)
  const pending = takePendingSignIn(sessionStorage);
  if (!pending) {
    throw new SignInRefused(
      'This sign-in was not started here, or was already used. Sign in again.',
    );
  }
  if (callback.state !== pending.state) {
    throw new SignInRefused('The sign-in answer does not match the request. Sign in again.');
  }
  if (!isExpectedIssuer(config, callback.issuer)) {
    throw new SignInRefused('The sign-in answer came from another server. Sign in again.');
  }
  if (callback.error) {
    throw new SignInRefused(
      REFUSALS[callback.error] ??
        `The sign-in server refused: ${callback.errorDescription ?? callback.error}.`,
    );
  }
  if (!callback.code) {
    throw new SignInRefused('The sign-in answer has no code. Sign in again.');
  }
  const tokens = await exchangeAuthorizationCode(config, callback.code, pending.codeVerifier);
  return { tokens, returnTo: pending.returnTo };
}
