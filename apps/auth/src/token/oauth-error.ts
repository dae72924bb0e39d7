import { errorDescription } from '@svc/oauth';
import type { FastifyReply } from 'fastify';

/** RFC 6749 5.2 error codes of the token endpoint, and RFC 7009 2.2.1's. */
export type TokenErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type';

/** A refusal of the token or revocation endpoint, answered as RFC 6749 5.2 JSON. */
export class OAuthError extends Error {
  constructor(
    readonly error: TokenErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}

/** Token responses and their errors are never cached (RFC 6749 5.1). */
export function sendOAuthJson(reply: FastifyReply, status: number, body: object): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send(body);
}

export function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  // invalid_client is 400, not 401: public clients do not authenticate with an HTTP scheme, so
  // there is no WWW-Authenticate challenge to send with a 401 (ADR 0014).
  // errorDescription keeps the text to RFC 6749 5.2's characters (ADR 0040).
  return sendOAuthJson(reply, 400, {
    error: error.error,
    error_description: errorDescription(error.description),
  });
}
