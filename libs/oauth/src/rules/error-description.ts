/**
 * What an `error_description` may hold (RFC 6749 4.1.2.1 and 5.2): %x20-21 / %x23-5B / %x5D-7E,
 * printable ASCII without `"` and `\`.
 */
export const ERROR_DESCRIPTION_PATTERN = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;

const OUTSIDE_THE_SET = /[^\x20-\x21\x23-\x5B\x5D-\x7E]/gu;

/**
 * The description as sent (ADR 0040): every error response of the authorization, token and
 * revocation endpoints goes through this. Descriptions are the product's own words and never
 * carry request text; should one ever hold a character outside the set, each such character
 * (a whole code point) becomes `?` rather than leave.
 */
export function errorDescription(description: string): string {
  return description.replace(OUTSIDE_THE_SET, '?');
}

/**
 * The parameter names of the protocol (RFC 6749, RFC 7636, RFC 7009, RFC 9207): a description
 * may name these, never a name a request made up.
 */
export const OAUTH_PARAMETER_NAMES: ReadonlySet<string> = new Set([
  'response_type',
  'client_id',
  'client_secret',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'grant_type',
  'code',
  'code_verifier',
  'refresh_token',
  'token',
  'token_type_hint',
  'iss',
]);

/**
 * "parameters must not be repeated: …" naming the repeated protocol parameters and counting the
 * others (RFC 6749 3.1), so the request's own names are never echoed.
 */
export function repeatedParametersDescription(repeated: readonly string[]): string {
  const named = repeated.filter((name) => OAUTH_PARAMETER_NAMES.has(name));
  const others = repeated.length - named.length;
  if (named.length === 0) {
    return others === 1
      ? 'a parameter is repeated; each parameter must be sent once'
      : `${others} parameters are repeated; each parameter must be sent once`;
  }
  const rest = others > 0 ? ` and ${others} other${others === 1 ? '' : 's'}` : '';
  return `parameters must not be repeated: ${named.join(', ')}${rest}`;
}

/**
 * The `invalid_scope` description for unknown scope names: how many, never which, since the
 * names are the request's text (ADR 0040); RFC 8414 metadata lists the known ones.
 */
export function unknownScopesDescription(unknown: number, requested: number): string {
  const which =
    requested === 1
      ? 'the requested scope is unknown'
      : `${unknown} of the ${requested} requested scopes ${unknown === 1 ? 'is' : 'are'} unknown`;
  return `${which}; scopes_supported in /.well-known/oauth-authorization-server lists the known ones`;
}
