import { ConfigError } from '@svc/config';
import { SIGNING_ALGORITHM } from '@svc/identity';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, JWK } from 'jose';
import type { webcrypto } from 'node:crypto';

type CryptoKey = webcrypto.CryptoKey;

export { SIGNING_ALGORITHM };

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  /** What the JWKS publishes: the public half only. */
  publicJwk: JWK;
}

/** A bad or missing AUTH_SIGNING_KEYS: a configuration error (the app exits 78). */
export class SigningKeysError extends ConfigError {
  constructor(problem: string) {
    super([problem]);
  }
}

/**
 * The authorization server's token signing keys: the first signs, all are published, so a new
 * key can be put first while tokens signed by the old one stay verifiable until they expire.
 * Outside production, with none configured, one is generated for the life of the process.
 */
export async function loadSigningKeys(
  configured: Record<string, unknown>[] | undefined,
  production: boolean,
): Promise<SigningKey[]> {
  if (!configured) {
    if (production) {
      throw new SigningKeysError(
        'AUTH_SIGNING_KEYS: is required when NODE_ENV=production (a JSON array of private EC P-256 JWKs, the first one signing)',
      );
    }
    const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
    return [await signingKeyFrom(await exportJWK(privateKey))];
  }
  return Promise.all(configured.map((jwk) => signingKeyFrom(jwk as JWK)));
}

async function signingKeyFrom(jwk: JWK): Promise<SigningKey> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string') {
    throw new SigningKeysError(
      'AUTH_SIGNING_KEYS: each key must be a private EC P-256 JWK (kty EC, crv P-256, with d)',
    );
  }
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const kid = jwk.kid ?? (await calculateJwkThumbprint(publicJwk));
  return {
    kid,
    privateKey: (await importJWK(
      { ...jwk, alg: SIGNING_ALGORITHM },
      SIGNING_ALGORITHM,
    )) as CryptoKey,
    publicJwk: { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' },
  };
}
