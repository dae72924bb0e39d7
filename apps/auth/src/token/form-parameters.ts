import { repeatedParametersDescription, type OAuthClientsService } from '@svc/oauth';
import type { FastifyRequest } from 'fastify';
import { OAuthError } from './oauth-error';

/**
 * The request's form parameters (RFC 6749 3.2: application/x-www-form-urlencoded only); a
 * parameter sent twice is refused (RFC 6749 3.1).
 */
export function formParameters(request: FastifyRequest): Record<string, string> {
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError(
      'invalid_request',
      'send the parameters as application/x-www-form-urlencoded',
    );
  }
  const body = (request.body ?? {}) as Record<string, string | string[]>;
  const repeated = Object.keys(body).filter((name) => Array.isArray(body[name]));
  if (repeated.length > 0) {
    throw new OAuthError('invalid_request', repeatedParametersDescription(repeated));
  }
  return body as Record<string, string>;
}

export function required(parameters: Record<string, string>, name: string): string {
  const value = parameters[name];
  if (value === undefined || value === '') {
    throw new OAuthError('invalid_request', `${name} is required`);
  }
  return value;
}

/** Public clients identify themselves by client_id (RFC 6749 2.3); it must be registered. */
export async function requireRegisteredClient(
  clients: OAuthClientsService,
  parameters: Record<string, string>,
): Promise<string> {
  const clientId = required(parameters, 'client_id');
  if (!(await clients.find(clientId))) {
    throw new OAuthError('invalid_client', 'the client_id is not a registered client');
  }
  return clientId;
}
