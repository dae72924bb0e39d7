/**
 * Pure reading of what the address bar brings at load: a portal link's one-time token in the
 * fragment (`#portal=<token>`, ADR 0042) or an OAuth callback's query (`?code=&state=&iss=`).
 * Both are credentials or lead to one, so the caller removes them from the address bar before
 * anything else runs; these functions say what to keep and what to show instead.
 */

/** The longest token taken from a fragment: anything longer is not one of ours. */
const MAX_TOKEN_LENGTH = 512;
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

export interface PortalFragment {
  /** The link token, or null when the fragment has none (or a malformed one). */
  token: string | null;
  /** The fragment to leave in the address bar: the same without `portal=`, or '' if nothing is left. */
  remainingHash: string;
}

/** Reads `portal=<token>` out of a location's hash (`#portal=…`, maybe among other parameters). */
export function readPortalFragment(hash: string): PortalFragment {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!/(^|&)portal=/.test(raw)) {
    return { token: null, remainingHash: hash };
  }
  const parameters = new URLSearchParams(raw);
  const values = parameters.getAll('portal');
  parameters.delete('portal');
  const rest = parameters.toString();
  const token = values.length === 1 ? values[0] : null;
  const valid = token !== null && token.length <= MAX_TOKEN_LENGTH && TOKEN_CHARACTERS.test(token);
  return { token: valid ? token : null, remainingHash: rest ? `#${rest}` : '' };
}

export interface CallbackQuery {
  code: string | null;
  state: string | null;
  issuer: string | null;
  error: string | null;
  errorDescription: string | null;
}

/** The authorization response's parameters (RFC 6749 4.1.2, 4.1.2.1; RFC 9207's `iss`). */
export function readCallbackQuery(search: string): CallbackQuery {
  const parameters = new URLSearchParams(search);
  const one = (name: string): string | null => {
    const values = parameters.getAll(name);
    return values.length === 1 ? values[0] : null;
  };
  return {
    code: one('code'),
    state: one('state'),
    issuer: one('iss'),
    error: one('error'),
    errorDescription: one('error_description'),
  };
}
