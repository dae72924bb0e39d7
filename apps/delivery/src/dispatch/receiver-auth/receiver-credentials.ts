import { DELIVERY_HEADERS } from '@svc/contracts';
import { STANDARD_WEBHOOK_HEADERS } from '@svc/signing';
import type {
  BasicAuth,
  HeadersAuth,
  OAuthClientCredentialsAuth,
  ReceiverAuth,
} from '@svc/webhook-endpoints';
import type { ClientCertificate } from './client-certificate-pools';
import type { OAuthTokenCache } from './oauth-token-cache';

/** What an attempt adds to the engine's own request for a receiver's `auth` (ADR 0048). */
export interface AttemptCredentials {
  /** Extra request headers; null when the type adds none (mtls). */
  headers: Record<string, string> | null;
  /** mtls: the certificate to connect with, through the endpoint version's own pool. */
  clientCertificate: ClientCertificate | undefined;
  /** oauth: the token presented, to drop it when the receiver refuses it. */
  bearer: string | null;
}

/** What the credentials need of an endpoint: who it is, which version, what it asks for. */
export interface CredentialedEndpoint {
  id: string;
  version: number;
}

/** `id@version`: what the engine keeps per endpoint (tokens, pools) is kept per version. */
export function poolKeyOf(endpoint: CredentialedEndpoint): string {
  return `${endpoint.id}@${endpoint.version}`;
}

/**
 * Names the engine's own headers own, lower-cased: the API refuses them in `auth.headers`, and
 * the engine defends anyway, never letting an extra header replace one of its own. Also the
 * hop-by-hop and framing headers, which are not a receiver's to set.
 */
const ENGINE_HEADER_NAMES: ReadonlySet<string> = new Set(
  [
    'content-type',
    'content-length',
    'content-encoding',
    'transfer-encoding',
    'host',
    'connection',
    'keep-alive',
    'upgrade',
    'te',
    'trailer',
    'proxy-authorization',
    'proxy-connection',
    'user-agent',
    ...Object.values(DELIVERY_HEADERS),
    ...Object.values(STANDARD_WEBHOOK_HEADERS),
  ].map((name) => name.toLowerCase()),
);

/** Whether an extra header may go out: none of ours, no `X-SVC-*` or `webhook-*` at all. */
export function isEngineHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    ENGINE_HEADER_NAMES.has(lower) || lower.startsWith('x-svc-') || lower.startsWith('webhook-')
  );
}

/**
 * The engine's headers with the receiver's extra ones added: an extra header never replaces one of
 * the engine's (whatever its case), nor another extra header of the same name in another case.
 */
export function withExtraHeaders(
  own: Record<string, string>,
  extra: Record<string, string> | null,
): Record<string, string> {
  if (!extra) {
    return own;
  }
  const headers = { ...own };
  const taken = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  for (const [name, value] of Object.entries(extra)) {
    const lower = name.toLowerCase();
    if (taken.has(lower) || isEngineHeader(lower)) {
      continue;
    }
    taken.add(lower);
    headers[name] = value;
  }
  return headers;
}

/** The headers of `headers` and `basic` auth (pure): as given; `Basic base64(user:pass)`. */
export function staticHeadersOf(auth: HeadersAuth | BasicAuth): Record<string, string> {
  if (auth.type === 'headers') {
    return auth.headers;
  }
  const pair = Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64');
  return { authorization: `Basic ${pair}` };
}

/** Where tokens come from: the engine's OAuthTokenCache. */
export type TokenSource = Pick<OAuthTokenCache, 'token' | 'drop'>;

const bearerHeaders = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * The `EndpointCredentials` port of ADR 0048: an attempt's extra headers and client certificate
 * from the endpoint's opened `auth`. Synchronous for every type but OAuth, whose token may have
 * to be fetched.
 */
export class ReceiverCredentials {
  constructor(private readonly tokens: TokenSource) {}

  /** Rejects (oauth only) with a TokenRequestError when no token can be had. */
  forAttempt(
    endpoint: CredentialedEndpoint,
    auth: ReceiverAuth,
  ): AttemptCredentials | Promise<AttemptCredentials> {
    switch (auth.type) {
      case 'headers':
      case 'basic':
        return { headers: staticHeadersOf(auth), clientCertificate: undefined, bearer: null };
      case 'mtls':
        return {
          headers: null,
          clientCertificate: {
            poolKey: poolKeyOf(endpoint),
            certificate: auth.certificate,
            privateKey: auth.private_key,
          },
          bearer: null,
        };
      case 'oauth2_client_credentials':
        return this.withToken(endpoint, auth);
    }
  }

  /**
   * After the receiver refused `used` (a 401): drops its token and gets a fresh one (the one
   * another attempt may have fetched meanwhile). Null when the credentials were no token.
   */
  afterRefusal(
    endpoint: CredentialedEndpoint,
    auth: ReceiverAuth,
    used: AttemptCredentials,
  ): Promise<AttemptCredentials> | null {
    if (used.bearer === null || auth.type !== 'oauth2_client_credentials') {
      return null;
    }
    this.tokens.drop(poolKeyOf(endpoint), used.bearer);
    return this.withToken(endpoint, auth);
  }

  private async withToken(
    endpoint: CredentialedEndpoint,
    auth: OAuthClientCredentialsAuth,
  ): Promise<AttemptCredentials> {
    const token = await this.tokens.token(poolKeyOf(endpoint), auth);
    return { headers: bearerHeaders(token), clientCertificate: undefined, bearer: token };
  }
}
