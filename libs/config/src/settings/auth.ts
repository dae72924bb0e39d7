import { z } from 'zod';
import { cidrs, duration, integer, optionalUrl, setting, text, url } from '../kinds';
import { section } from '../section';

export interface AuthSettings {
  /** The `iss` of access tokens: the authorization server's base URL. */
  issuer: string;
  /** The `aud` of access tokens: this API. */
  audience: string;
  /** Where the API reads the token signing keys (cached; not fetched per request). */
  jwksUrl: string;
  /** Private JWKs; the first signs, all are published. Absent outside production: ephemeral. */
  signingKeys?: Record<string, unknown>[];
  /** Proxies whose X-Forwarded-For is believed (rightmost-untrusted rule); CIDR ranges. */
  trustedProxies: string[];
  /** Failed sign-ins allowed per account and per client address in one window (ADR 0017). */
  signInThrottle: {
    accountMaxFailures: number;
    addressMaxFailures: number;
    windowSeconds: number;
  };
}

const AUTH_ISSUER = setting(
  url('http://localhost:8081'),
  "the `iss` of access tokens: the authorization server's public URL",
);

const withoutTrailingSlash = (issuer: string) => issuer.replace(/\/$/, '');

/** What an access token says and both its issuer and its audience check. */
export const tokens = section({
  name: 'access tokens',
  variables: {
    AUTH_ISSUER,
    AUTH_AUDIENCE: setting(text('svc-api'), 'the `aud` of access tokens'),
  },
  build: (values): { auth: Pick<AuthSettings, 'issuer' | 'audience'> } => ({
    auth: { issuer: withoutTrailingSlash(values.AUTH_ISSUER), audience: values.AUTH_AUDIENCE },
  }),
});

/** Where the API finds the keys that verify access tokens. */
export const tokenKeys = section({
  name: 'token keys',
  variables: {
    AUTH_ISSUER,
    AUTH_JWKS_URL: setting(optionalUrl(), 'where the API reads the token signing keys (cached)', {
      default: '`<AUTH_ISSUER>/.well-known/jwks.json`',
    }),
  },
  build: (values): { auth: Pick<AuthSettings, 'jwksUrl'> } => ({
    auth: {
      jwksUrl:
        values.AUTH_JWKS_URL ?? `${withoutTrailingSlash(values.AUTH_ISSUER)}/.well-known/jwks.json`,
    },
  }),
});

const signingKeys = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw.trim() === '') {
      return undefined;
    }
    try {
      const keys = JSON.parse(raw) as unknown;
      if (
        Array.isArray(keys) &&
        keys.length > 0 &&
        keys.every((key) => typeof key === 'object' && key !== null)
      ) {
        return keys as Record<string, unknown>[];
      }
    } catch {
      // reported below
    }
    ctx.addIssue({
      code: 'custom',
      message: 'must be a JSON array of private JWKs (EC P-256), the first one signing',
    });
    return z.NEVER;
  });

/** The authorization server's own: its signing keys, its proxies, its sign-in throttle. */
export const authorizationServer = section({
  name: 'authorization server',
  variables: {
    AUTH_SIGNING_KEYS: setting(
      { schema: signingKeys, default: 'none (required in production)', format: 'JSON array' },
      'private EC P-256 JWKs; the first signs, all are published; outside production a key is generated per start',
    ),
    AUTH_TRUSTED_PROXIES: setting(
      cidrs(),
      'CIDR ranges of proxies whose `X-Forwarded-For` the auth app believes (rightmost untrusted entry)',
    ),
    AUTH_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: setting(
      integer(5, 1, 1000),
      'failed sign-ins for one account in a window; then 429 until it ends',
    ),
    AUTH_SIGN_IN_MAX_FAILURES_PER_ADDRESS: setting(
      integer(20, 1, 100_000),
      'failed sign-ins from one client address (IPv6: its /64) in a window; then 429',
    ),
    AUTH_SIGN_IN_THROTTLE_WINDOW: setting(
      duration('15m'),
      'the sign-in throttle window, starting with its first failure',
    ),
  },
  build: (
    values,
  ): { auth: Pick<AuthSettings, 'signingKeys' | 'trustedProxies' | 'signInThrottle'> } => ({
    auth: {
      signingKeys: values.AUTH_SIGNING_KEYS,
      trustedProxies: values.AUTH_TRUSTED_PROXIES,
      signInThrottle: {
        accountMaxFailures: values.AUTH_SIGN_IN_MAX_FAILURES_PER_ACCOUNT,
        addressMaxFailures: values.AUTH_SIGN_IN_MAX_FAILURES_PER_ADDRESS,
        windowSeconds: Math.ceil(values.AUTH_SIGN_IN_THROTTLE_WINDOW / 1000),
      },
    },
  }),
});
