import type { OAuthClientCredentialsAuth } from '@svc/webhook-endpoints';
import type { Dispatcher } from 'undici';
import {
  OAuthTokenCache,
  readTokenAnswer,
  TOKEN_ANSWER_LIMIT_BYTES,
  tokenLifetimeMs,
  TokenRequestError,
  tokenRequestOf,
} from './oauth-token-cache';

const auth: OAuthClientCredentialsAuth = {
  type: 'oauth2_client_credentials',
  token_url: 'https://idp.example/oauth/token?tenant=a',
  client_id: 'svc delivery',
  client_secret: 'p&ss:wörd+',
};

describe('the token expiry rule (ADR 0048)', () => {
  it('keeps a token until 60 s before it ends, 5 min without expires_in, half a short one', () => {
    expect(tokenLifetimeMs(3600)).toBe(3_540_000);
    expect(tokenLifetimeMs(61)).toBe(1000);
    expect(tokenLifetimeMs(60)).toBe(30_000);
    expect(tokenLifetimeMs(10)).toBe(5000);
    expect(tokenLifetimeMs(undefined)).toBe(300_000);
  });
});

describe('the token request (RFC 6749 4.4, 2.3.1)', () => {
  it('sends Basic with the form-encoded id and secret by default, nothing secret in the form', () => {
    const { headers, body } = tokenRequestOf({ ...auth, scope: 'a b', audience: 'x' }, 'basic');
    expect(headers).toEqual({
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      authorization: `Basic ${Buffer.from('svc+delivery:p%26ss%3Aw%C3%B6rd%2B').toString('base64')}`,
    });
    expect(body).toBe('grant_type=client_credentials&scope=a+b&audience=x');
  });

  it('puts the credentials in the form when asked to', () => {
    const { headers, body } = tokenRequestOf(auth, 'form');
    expect(headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(body))).toEqual({
      grant_type: 'client_credentials',
      client_id: 'svc delivery',
      client_secret: 'p&ss:wörd+',
    });
  });

  it('reads a bearer token answer and refuses the rest', () => {
    expect(readTokenAnswer('{"access_token":"t","token_type":"bearer","expires_in":90}')).toEqual({
      accessToken: 't',
      expiresInSeconds: 90,
    });
    expect(readTokenAnswer('{"access_token":"t","token_type":"Bearer","expires_in":"90"}')).toEqual(
      { accessToken: 't', expiresInSeconds: 90 },
    );
    expect(readTokenAnswer('{"access_token":"t","token_type":"BEARER"}').expiresInSeconds).toBe(
      undefined,
    );
    for (const [answer, message] of [
      ['<html>', /other than JSON/],
      ['{"token_type":"bearer"}', /without an access_token/],
      ['{"access_token":"t","token_type":"mac"}', /token_type mac, not Bearer/],
      ['{"access_token":"t"}', /token_type none/],
      ['{"access_token":"t","token_type":"bearer","expires_in":-5}', /expires_in/],
    ] as const) {
      expect(() => readTokenAnswer(answer)).toThrow(TokenRequestError);
      expect(() => readTokenAnswer(answer)).toThrow(message);
    }
  });
});

/** A token endpoint as a dispatcher: each request answered by the next planned answer. */
function fakeEndpoint(plan: Array<{ status: number; body: string }>) {
  const requests: Array<{ origin: string; path: string; headers: Record<string, string> }> = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> | null = null;
  const dispatcher = {
    request: async (options: { origin: string; path: string; headers: Record<string, string> }) => {
      requests.push(options);
      if (gate) await gate;
      const next = plan.shift() ?? { status: 500, body: '' };
      return {
        statusCode: next.status,
        body: Object.assign([Buffer.from(next.body)][Symbol.iterator](), {
          destroy: () => undefined,
        }),
      };
    },
  } as unknown as Dispatcher;
  return {
    dispatcher,
    requests,
    hold() {
      gate = new Promise((done) => (release = done));
    },
    release: () => {
      gate = null;
      release();
    },
  };
}

const issued = (token: string, expiresIn?: number) => ({
  status: 200,
  body: JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: expiresIn }),
});

describe('OAuthTokenCache', () => {
  let now: number;
  const cache = (dispatcher: Dispatcher, maxEntries?: number) =>
    new OAuthTokenCache({ dispatcher, timeoutMs: 1000, now: () => now, maxEntries });

  beforeEach(() => {
    now = 1_000_000;
  });

  it('shares one fetch among concurrent callers, and keeps the token until its renewal', async () => {
    const endpoint = fakeEndpoint([issued('t1', 120), issued('t2', 120)]);
    const tokens = cache(endpoint.dispatcher);
    endpoint.hold();
    const waiting = [1, 2, 3].map(() => tokens.token('ep@1', auth));
    endpoint.release();
    expect(await Promise.all(waiting)).toEqual(['t1', 't1', 't1']);
    expect(endpoint.requests).toHaveLength(1);
    expect(endpoint.requests[0]).toMatchObject({
      origin: 'https://idp.example',
      path: '/oauth/token?tenant=a',
    });
    now += 59_000;
    expect(await tokens.token('ep@1', auth)).toBe('t1');
    now += 1_000;
    expect(await tokens.token('ep@1', auth)).toBe('t2');
  });

  it('drops a token only while it is the cached one: many refusals, one new fetch', async () => {
    const endpoint = fakeEndpoint([issued('t1'), issued('t2'), issued('t3')]);
    const tokens = cache(endpoint.dispatcher);
    expect(await tokens.token('ep@1', auth)).toBe('t1');
    tokens.drop('ep@1', 't1');
    const second = await tokens.token('ep@1', auth);
    tokens.drop('ep@1', 't1');
    tokens.drop('ep@1', 't1');
    expect(await tokens.token('ep@1', auth)).toBe(second);
    expect(endpoint.requests).toHaveLength(2);
  });

  it('falls back to the form on invalid_client and remembers it per endpoint', async () => {
    const refused = { status: 401, body: '{"error":"invalid_client"}' };
    const endpoint = fakeEndpoint([refused, issued('t1', 61), issued('t2')]);
    const tokens = cache(endpoint.dispatcher);
    expect(await tokens.token('ep@1', auth)).toBe('t1');
    now += 1000;
    expect(await tokens.token('ep@1', auth)).toBe('t2');
    expect(endpoint.requests.map((request) => 'authorization' in request.headers)).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('says what the token endpoint did, never the secret, and caches no failure', async () => {
    const endpoint = fakeEndpoint([
      { status: 401, body: '{"error":"invalid_client"}' },
      { status: 401, body: '{"error":"invalid_client"}' },
      { status: 503, body: '{"error":"x\\u0000\\"y"}' },
      { status: 200, body: 'x'.repeat(TOKEN_ANSWER_LIMIT_BYTES + 1) },
      issued('t1'),
    ]);
    const tokens = cache(endpoint.dispatcher);
    const failure = (): Promise<Error> =>
      tokens.token('ep@1', auth).then(
        () => {
          throw new Error('a token');
        },
        (error: Error) => error,
      );
    const refused = await failure();
    expect(refused).toBeInstanceOf(TokenRequestError);
    expect(refused.name).toBe('TokenRequestError');
    expect(refused.message).toBe('token endpoint answered 401 invalid_client');
    expect((await failure()).message).toBe('token endpoint answered 503');
    expect((await failure()).message).toMatch(/more than 65536 bytes/);
    expect(await tokens.token('ep@1', auth)).toBe('t1');
    await expect(
      tokens.token('ep@2', { ...auth, token_url: 'http://idp.example/token' }),
    ).rejects.toThrow('the token URL must be https');
  });

  it('keeps a bounded number of endpoints, and nothing after close', async () => {
    const endpoint = fakeEndpoint([issued('a'), issued('b'), issued('c'), issued('a2')]);
    const tokens = cache(endpoint.dispatcher, 2);
    await tokens.token('a@1', auth);
    await tokens.token('b@1', auth);
    await tokens.token('c@1', auth);
    expect(tokens.size).toBe(2);
    expect(await tokens.token('a@1', auth)).toBe('a2');
    tokens.close();
    expect(tokens.size).toBe(0);
    await expect(tokens.token('a@1', auth)).rejects.toThrow(TokenRequestError);
  });
});
