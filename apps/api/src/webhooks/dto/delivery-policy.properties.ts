import type { SchemaObject } from '@nestjs/swagger';
import {
  MAX_AUTH_HEADERS,
  RETRY_SCHEDULE_MAX_ENTRIES,
  TIMEOUT_SECONDS_MAX,
  TIMEOUT_SECONDS_MIN,
} from '@svc/webhook-endpoints';

/**
 * The OpenAPI documentation of `auth`, `retry_schedule` and `timeout_seconds` (ADR 0048), shared
 * by registration, update and the answers. Only documentation: the rules, and each problem's path
 * (`auth.headers.Host`), are @svc/webhook-endpoints's.
 */

const string = (description: string, extra: SchemaObject = {}): SchemaObject => ({
  type: 'string',
  ...(description && { description }),
  ...extra,
});

const object = (
  type: string,
  properties: Record<string, SchemaObject>,
  required: string[],
  description: string,
): SchemaObject => ({
  type: 'object',
  title: type,
  description,
  properties: { type: { type: 'string', enum: [type] }, ...properties },
  required: ['type', ...required],
  additionalProperties: false,
});

const AUTH_REQUEST_VARIANTS: SchemaObject[] = [
  object(
    'headers',
    {
      headers: {
        type: 'object',
        additionalProperties: { type: 'string', maxLength: 4096 },
        minProperties: 1,
        maxProperties: MAX_AUTH_HEADERS,
        description: `Up to ${MAX_AUTH_HEADERS} headers sent with every delivery, such as {"Authorization": "Splunk <token>"}. Refused: hop-by-hop headers, Host, Expect, User-Agent, Content-*, X-SVC-* and webhook-*. The values are secrets: never returned.`,
        example: { Authorization: 'Splunk 2f5c4f1e-0000-4000-8000-000000000000' },
      },
    },
    ['headers'],
    'Extra headers with every delivery.',
  ),
  object(
    'basic',
    {
      username: string('Without a colon (RFC 7617).', { maxLength: 256 }),
      password: string('Never returned.', { maxLength: 1024, writeOnly: true }),
    },
    ['username', 'password'],
    'HTTP Basic authentication with every delivery.',
  ),
  object(
    'oauth2_client_credentials',
    {
      token_url: string(
        'https only; passes the same address rules as the endpoint URL, checked again when the engine connects.',
        { format: 'uri', maxLength: 2048 },
      ),
      client_id: string('The client id at the token endpoint.', { maxLength: 256 }),
      client_secret: string('Never returned.', { maxLength: 1024, writeOnly: true }),
      scope: string('Sent as `scope` when given.', { maxLength: 256 }),
      audience: string('Sent as `audience` when given.', { maxLength: 256 }),
    },
    ['token_url', 'client_id', 'client_secret'],
    'A bearer token from an OAuth 2.0 client-credentials grant (RFC 6749 4.4): the engine fetches it, shares it across deliveries until shortly before it expires, and fetches a new one once when the receiver answers 401. The client authenticates with HTTP Basic, or in the form when the token endpoint refuses Basic. A token that cannot be had fails the attempt with error kind `auth_token`.',
  ),
  object(
    'mtls',
    {
      certificate: string('PEM: the client certificate, then any intermediates.', {
        maxLength: 65536,
      }),
      private_key: string('PEM, unencrypted, matching the certificate. Never returned.', {
        maxLength: 65536,
        writeOnly: true,
      }),
    },
    ['certificate', 'private_key'],
    'A client certificate presented in the TLS handshake (mutual TLS). Refused when the key does not match or the certificate is expired.',
  ),
];

const AUTH_VIEW_VARIANTS: SchemaObject[] = [
  object(
    'headers',
    { header_names: { type: 'array', items: { type: 'string' } } },
    ['header_names'],
    'Extra headers: their names only.',
  ),
  object('basic', { username: string('') }, ['username'], 'HTTP Basic: the username only.'),
  object(
    'oauth2_client_credentials',
    {
      token_url: string('', { format: 'uri' }),
      client_id: string(''),
      scope: string('', { nullable: true }),
      audience: string('', { nullable: true }),
    },
    ['token_url', 'client_id', 'scope', 'audience'],
    'OAuth 2.0 client credentials: everything but the secret.',
  ),
  object(
    'mtls',
    {
      subject: string("The certificate's subject, such as O=Example, CN=svc-webhooks."),
      issuer: string("The certificate's issuer."),
      not_after: string('When the certificate expires: ISO 8601, UTC.', { format: 'date-time' }),
      fingerprint_sha256: string('SHA-256 of the certificate, colon-separated hex.'),
    },
    ['subject', 'issuer', 'not_after', 'fingerprint_sha256'],
    'Mutual TLS: what the certificate says; never the key.',
  ),
];

const AUTH_DESCRIPTION =
  'How the receiver is authenticated besides the signature (ADR 0048), one `type` of: `headers`, `basic`, `oauth2_client_credentials`, `mtls`. Every secret is encrypted at rest and never returned.';

/**
 * null or one of the variants. OpenAPI 3.0 allows `nullable` only beside a `type`, which the
 * document generator drops next to a `oneOf`: so each variant is nullable, and `anyOf` lets null
 * match them all (an object matches only its type's, by the `type` enum).
 */
const nullableUnion = (variants: SchemaObject[]) => ({
  anyOf: variants.map((variant) => ({ ...variant, nullable: true })),
});

export const AUTH_REQUEST_PROPERTY = {
  ...nullableUnion(AUTH_REQUEST_VARIANTS),
  description: AUTH_DESCRIPTION,
  example: { type: 'headers', headers: { Authorization: 'Splunk <token>' } },
};

export const AUTH_VIEW_PROPERTY = {
  ...nullableUnion(AUTH_VIEW_VARIANTS),
  description: `${AUTH_DESCRIPTION} The answer shows the type and what is not secret; null when the endpoint has none.`,
};

export const RETRY_SCHEDULE_PROPERTY = {
  type: 'array' as const,
  items: { type: 'string' as const, pattern: '^[1-9][0-9]*(s|m|h)$' },
  minItems: 1,
  maxItems: RETRY_SCHEDULE_MAX_ENTRIES,
  nullable: true,
  description: `The endpoint's own retry delays (ADR 0048): the waits before attempts 2, 3, ..., each a whole number of seconds, minutes or hours between 1s and 24h; a delivery gets one attempt more than there are entries. null: the deployment's schedule (the specification's 5s, 30s, 5m, 30m, 2h unless the operator changed it).`,
  example: ['10s', '1m', '10m', '1h'],
};

export const TIMEOUT_SECONDS_PROPERTY = {
  type: 'integer' as const,
  minimum: TIMEOUT_SECONDS_MIN,
  maximum: TIMEOUT_SECONDS_MAX,
  nullable: true,
  description: `The endpoint's own attempt timeout in seconds, from connecting to the last byte of the answer (ADR 0048); ${TIMEOUT_SECONDS_MAX} is the specification's and the ceiling. null: the deployment's.`,
  example: 5,
};
