import { CREDENTIAL_PATTERN } from '@svc/identity';

/** Parameter names clients use for credentials when they should use the Authorization header. */
const CREDENTIAL_QUERY_NAMES = new Set([
  'access_token',
  'api_key',
  'apikey',
  'api-key',
  'key',
  'token',
]);
const CREDENTIAL_BODY_NAMES = new Set([
  'access_token',
  'api_key',
  'apikey',
  'api-key',
  'authorization',
]);
const MAX_DEPTH = 8;

export type CredentialPlace = 'query' | 'body';

/**
 * Where a request carries a credential outside the Authorization header, if anywhere: a
 * credential-named query parameter or body field, or any value that looks like one of our keys.
 */
export function findMisplacedCredential(query: unknown, body: unknown): CredentialPlace | null {
  if (holdsCredential(query, CREDENTIAL_QUERY_NAMES, 0)) {
    return 'query';
  }
  if (holdsCredential(body, CREDENTIAL_BODY_NAMES, 0)) {
    return 'body';
  }
  return null;
}

function holdsCredential(value: unknown, names: Set<string>, depth: number): boolean {
  if (typeof value === 'string') {
    return CREDENTIAL_PATTERN.test(value);
  }
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') {
    return false;
  }
  if (Array.isArray(value)) {
    return value.some((item) => holdsCredential(item, names, depth + 1));
  }
  return Object.entries(value).some(
    ([name, item]) =>
      (depth === 0 && names.has(name.toLowerCase())) || holdsCredential(item, names, depth + 1),
  );
}
