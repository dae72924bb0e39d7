import { Logger } from '@nestjs/common';
import type { OAuthClientCredentialsAuth } from '@svc/webhook-endpoints';
import type { Dispatcher } from 'undici';
import { findBlockedAddress } from '../attempt-exchange';

/** The most of a token endpoint's answer read: a token answer is a few hundred bytes. */
export const TOKEN_ANSWER_LIMIT_BYTES = 64 * 1024;
/** Tokens of this many endpoint versions are kept at once (least recently fetched out). */
export const DEFAULT_MAX_CACHED_TOKENS = 4096;

/**
 * The receiver's OAuth token could not be had (ADR 0048). The message is the tenant's, in the
 * attempt log: what the token endpoint did, never the client secret or a token.
 */
export class TokenRequestError extends Error {
  override readonly name = 'TokenRequestError';
}

/**
 * How long a token is used, from its `expires_in` (seconds): until 60 s before it ends, so that
 * no request carries a token about to expire; 5 min when the server gives no lifetime; half the
 * lifetime when it is 60 s or less.
 */
export function tokenLifetimeMs(expiresInSeconds: number | undefined): number {
  if (expiresInSeconds === undefined) {
    return 5 * 60_000;
  }
  return expiresInSeconds <= 60 ? (expiresInSeconds * 1000) / 2 : (expiresInSeconds - 60) * 1000;
}

/** RFC 6749 2.3.1's two ways of presenting the client's credentials. */
export type ClientAuthMethod = 'basic' | 'form';

/** application/x-www-form-urlencoded, as RFC 6749 2.3.1 wants id and secret encoded for Basic. */
function formEncoded(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

/** The token request's headers and body for a client authentication method (pure). */
export function tokenRequestOf(
  auth: OAuthClientCredentialsAuth,
  method: ClientAuthMethod,
): { headers: Record<string, string>; body: string } {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (auth.scope) {
    form.set('scope', auth.scope);
  }
  if (auth.audience) {
    form.set('audience', auth.audience);
  }
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (method === 'basic') {
    const pair = `${formEncoded(auth.client_id)}:${formEncoded(auth.client_secret)}`;
    headers.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  } else {
    form.set('client_id', auth.client_id);
    form.set('client_secret', auth.client_secret);
  }
  return { headers, body: form.toString() };
}

/** A token endpoint's JSON answer, with only what we rely on. */
export interface TokenAnswer {
  accessToken: string;
  expiresInSeconds: number | undefined;
}

/** RFC 6749 5.1's successful answer, or a TokenRequestError saying what is wrong with it. */
export function readTokenAnswer(text: string): TokenAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TokenRequestError('token endpoint answered something other than JSON');
  }
  const { access_token, token_type, expires_in } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof access_token !== 'string' || access_token === '') {
    throw new TokenRequestError('token endpoint answered without an access_token');
  }
  if (typeof token_type !== 'string' || token_type.toLowerCase() !== 'bearer') {
    throw new TokenRequestError(
      `token endpoint answered token_type ${typeof token_type === 'string' ? printable(token_type) : 'none'}, not Bearer`,
    );
  }
  // Some servers send the number as a string.
  const lifetime =
    typeof expires_in === 'string' && /^\d{1,9}$/.test(expires_in)
      ? Number(expires_in)
      : expires_in;
  if (
    lifetime !== undefined &&
    !(typeof lifetime === 'number' && lifetime > 0 && isFinite(lifetime))
  ) {
    throw new TokenRequestError(
      'token endpoint answered an expires_in that is not a positive number',
    );
  }
  return { accessToken: access_token, expiresInSeconds: lifetime };
}

/** Text from the server, safe and short enough for a message. */
function printable(value: string): string {
  return value.replace(/[^\x21-\x7e]/g, '').slice(0, 40);
}

interface CachedToken {
  token: string;
  /** In `now()` time. */
  renewAt: number;
}

export interface OAuthTokenCacheOptions {
  /** The engine's shared pool: the SSRF checks, the trust store and the egress proxy. */
  dispatcher: Dispatcher;
  /** A token request's budget, from connecting to its last byte. */
  timeoutMs: number;
  maxEntries?: number;
  now?: () => number;
}

const logger = new Logger('OAuthTokenCache');

/**
 * OAuth 2.0 client-credentials tokens of the receivers that want them (ADR 0048), one per
 * endpoint version (`poolKey`), shared by every delivery to it: fetched once at a time
 * (concurrent callers share the fetch), kept until shortly before they expire, dropped at once
 * when a receiver refuses one. Client authentication per RFC 6749 2.3.1: HTTP Basic first; the
 * form when the token endpoint refuses Basic with `invalid_client`, remembered per endpoint.
 */
export class OAuthTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly fetching = new Map<string, Promise<string>>();
  /** The endpoint versions whose token endpoint wants the credentials in the form. */
  private readonly formClients = new Map<string, true>();
  private closed = false;

  constructor(private readonly options: OAuthTokenCacheOptions) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private get maxEntries(): number {
    return this.options.maxEntries ?? DEFAULT_MAX_CACHED_TOKENS;
  }

  /** A token to present now; rejects with a TokenRequestError when none can be had. */
  token(poolKey: string, auth: OAuthClientCredentialsAuth): Promise<string> {
    const cached = this.tokens.get(poolKey);
    if (cached && cached.renewAt > this.now()) {
      return Promise.resolve(cached.token);
    }
    const inFlight = this.fetching.get(poolKey);
    if (inFlight) {
      return inFlight;
    }
    const fetched = this.fetch(poolKey, auth).finally(() => {
      if (this.fetching.get(poolKey) === fetched) {
        this.fetching.delete(poolKey);
      }
    });
    this.fetching.set(poolKey, fetched);
    return fetched;
  }

  /**
   * Forgets `token` when it is still the cached one (a receiver refused it): of many refusals of
   * one token at once, only the first causes a new fetch.
   */
  drop(poolKey: string, token: string): void {
    if (this.tokens.get(poolKey)?.token === token) {
      this.tokens.delete(poolKey);
    }
  }

  /** Tokens of endpoint versions held now. */
  get size(): number {
    return this.tokens.size;
  }

  /** Forgets every token; later requests fail. The connections are the dispatcher owner's. */
  close(): void {
    this.closed = true;
    this.tokens.clear();
    this.formClients.clear();
  }

  private async fetch(poolKey: string, auth: OAuthClientCredentialsAuth): Promise<string> {
    if (this.closed) {
      throw new TokenRequestError('the engine is stopping');
    }
    const url = tokenUrlOf(auth.token_url);
    const method: ClientAuthMethod = this.formClients.has(poolKey) ? 'form' : 'basic';
    let answer = await this.request(url, tokenRequestOf(auth, method));
    if (method === 'basic' && refusedClient(answer)) {
      answer = await this.request(url, tokenRequestOf(auth, 'form'));
      if (answer.statusCode >= 200 && answer.statusCode < 300) {
        remember(this.formClients, poolKey, true, this.maxEntries);
      }
    }
    if (answer.statusCode < 200 || answer.statusCode > 299) {
      throw new TokenRequestError(
        `token endpoint answered ${answer.statusCode}${errorCodeOf(answer)}`,
      );
    }
    const { accessToken, expiresInSeconds } = readTokenAnswer(answer.text);
    if (!this.closed) {
      remember(
        this.tokens,
        poolKey,
        { token: accessToken, renewAt: this.now() + tokenLifetimeMs(expiresInSeconds) },
        this.maxEntries,
      );
    }
    return accessToken;
  }

  /** One POST to the token endpoint, its answer read whole (bounded); redirects not followed. */
  private async request(
    url: URL,
    { headers, body }: { headers: Record<string, string>; body: string },
  ): Promise<{ statusCode: number; text: string }> {
    const { timeoutMs } = this.options;
    try {
      const answer = await this.options.dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        length += chunk.length;
        if (length > TOKEN_ANSWER_LIMIT_BYTES) {
          answer.body.destroy();
          throw new TokenRequestError(
            `token endpoint answered more than ${TOKEN_ANSWER_LIMIT_BYTES} bytes`,
          );
        }
        chunks.push(chunk);
      }
      return { statusCode: answer.statusCode, text: Buffer.concat(chunks).toString('utf8') };
    } catch (error) {
      if (error instanceof TokenRequestError) {
        throw error;
      }
      const blocked = findBlockedAddress(error);
      if (blocked) {
        logger.warn(`token request refused: ${blocked.detail}`);
      }
      throw new TokenRequestError(`token endpoint unreachable: ${reasonOf(error)}`, {
        cause: error,
      });
    }
  }
}

/** The token URL, https only: the client secret is never sent in clear. */
function tokenUrlOf(tokenUrl: string): URL {
  let url: URL;
  try {
    url = new URL(tokenUrl);
  } catch {
    throw new TokenRequestError('the token URL is not a URL');
  }
  if (url.protocol !== 'https:') {
    throw new TokenRequestError('the token URL must be https');
  }
  return url;
}

/** RFC 6749 5.2: the client's authentication failed, as a 400 or a 401. */
function refusedClient(answer: { statusCode: number; text: string }): boolean {
  return (
    (answer.statusCode === 400 || answer.statusCode === 401) &&
    errorOf(answer.text) === 'invalid_client'
  );
}

function errorOf(text: string): string | null {
  try {
    const { error } = JSON.parse(text) as { error?: unknown };
    return typeof error === 'string' ? error : null;
  } catch {
    return null;
  }
}

/** ` invalid_client`: RFC 6749's error code, when the answer has one (its characters only). */
function errorCodeOf(answer: { text: string }): string {
  const error = errorOf(answer.text);
  return error && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(error) ? ` ${error}` : '';
}

/** What went wrong in reaching the endpoint: "blocked address", never how our DNS sees it. */
function reasonOf(error: unknown): string {
  const blocked = findBlockedAddress(error);
  if (blocked) {
    return blocked.message;
  }
  const { name, message, cause } = error as { name?: string; message?: string; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') {
    return 'no answer in time';
  }
  const inner = cause instanceof Error ? `: ${cause.message}` : '';
  return `${message ?? String(error)}${inner}`.slice(0, 200);
}

/** Sets `key` as the most recent entry, the oldest out past `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= max) {
      break;
    }
    map.delete(oldest);
  }
}
