import { PROBLEM_TYPES, ProblemException } from '@svc/http';
import type { CredentialPlace } from './misplaced-credentials';

export const AUTH_REALM = 'svc';

const challenge = (params: Record<string, string>) =>
  `Bearer ${Object.entries({ realm: AUTH_REALM, ...params })
    .map(([name, value]) => `${name}="${value}"`)
    .join(', ')}`;

export const authProblems = {
  /** RFC 6750 3.1: a request without credentials gets a bare challenge, without an error code. */
  missingCredentials(): ProblemException {
    return new ProblemException(
      {
        type: PROBLEM_TYPES.unauthenticated,
        title: 'Authentication required',
        status: 401,
        detail: 'Send your API key in the header "Authorization: Bearer <API_KEY>".',
      },
      { 'www-authenticate': challenge({}) },
    );
  },
  invalidToken(): ProblemException {
    const description = 'The credential is malformed, unknown, expired or revoked.';
    return new ProblemException(
      {
        type: PROBLEM_TYPES.unauthenticated,
        title: 'Invalid credentials',
        status: 401,
        detail: description,
      },
      { 'www-authenticate': challenge({ error: 'invalid_token', error_description: description }) },
    );
  },
  insufficientScope(required: readonly string[]): ProblemException {
    const scope = required.join(' ');
    return new ProblemException(
      {
        type: PROBLEM_TYPES.insufficientScope,
        title: 'Insufficient scope',
        status: 403,
        detail: `This operation needs the scope ${scope}.`,
        required_scope: scope,
      },
      {
        'www-authenticate': challenge({
          error: 'insufficient_scope',
          scope,
          error_description: `The credential lacks the scope ${scope}.`,
        }),
      },
    );
  },
  /** A read-only portal session (ADR 0042) may look but never change anything. */
  readOnlySession(): ProblemException {
    const description = 'This portal session is read-only: it may only read (GET).';
    return new ProblemException(
      {
        type: PROBLEM_TYPES.insufficientScope,
        title: 'Read-only session',
        status: 403,
        detail: description,
      },
      {
        'www-authenticate': challenge({
          error: 'insufficient_scope',
          error_description: description,
        }),
      },
    );
  },
  /** A credential of the wrong kind for the operation, whatever its scopes. */
  credentialKindRefused(detail: string): ProblemException {
    return new ProblemException(
      {
        type: PROBLEM_TYPES.insufficientScope,
        title: 'Not allowed for this credential',
        status: 403,
        detail,
      },
      {
        'www-authenticate': challenge({ error: 'insufficient_scope', error_description: detail }),
      },
    );
  },
  /**
   * The one answer for a portal link that cannot open a session, whichever the reason. A link
   * that was minted (used or expired since) gives back its `return_url`, so that the console can
   * offer the way back to the platform; it is no secret, and only the link's holder learns it.
   */
  invalidPortalLink(returnUrl: string | null = null): ProblemException {
    const description = 'The portal link is invalid, already used or expired.';
    return new ProblemException(
      {
        type: PROBLEM_TYPES.unauthenticated,
        title: 'Invalid portal link',
        status: 401,
        detail: `${description} A link works once and for a few minutes: ask for a new one.`,
        ...(returnUrl !== null && { return_url: returnUrl }),
      },
      { 'www-authenticate': challenge({ error: 'invalid_token', error_description: description }) },
    );
  },
  credentialsOutsideHeader(place: CredentialPlace): ProblemException {
    return new ProblemException({
      type: PROBLEM_TYPES.credentialsOutsideHeader,
      title: 'Credentials in the wrong place',
      status: 400,
      detail: `Credentials are not accepted in the request ${place === 'query' ? 'query string' : 'body'}. Send them only in the header "Authorization: Bearer <API_KEY>". Treat a key sent this way as exposed and rotate it.`,
    });
  },
  /** Two or more Authorization headers: which one counts would be ambiguous, so none does. */
  duplicateAuthorization(): ProblemException {
    return new ProblemException({
      type: PROBLEM_TYPES.duplicateHeader,
      title: 'Duplicate header',
      status: 400,
      detail: 'Send exactly one Authorization header.',
    });
  },
};
