import { createPublicKey, JsonWebKey, KeyObject, sign, verify } from 'node:crypto';
import { DEFAULT_TIMESTAMP_TOLERANCE_SECONDS, StandardWebhookCheck } from './standard-webhooks';

/**
 * Ed25519 signatures as the Standard Webhooks specification defines them (ADR 0044): each
 * `webhook-signature` entry `v1a,<base64 signature>` covers `<id>.<timestamp>.<body>`, the same
 * bytes as the `v1,` HMAC entries, so one header carries both schemes while a receiver migrates.
 */
export const ED25519_SIGNATURE_VERSION = 'v1a';

/** An Ed25519 signature is always 64 bytes: anything else is refused before verifying. */
const SIGNATURE_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A public key as published in the JWKS (RFC 8037): the raw 32-byte key in `x`, base64url. */
// A type rather than an interface: it is then assignable to node:crypto's JsonWebKey.
export type Ed25519PublicJwk = {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
};

function signedContent(id: string, timestamp: number | string, rawBody: Buffer | string): Buffer {
  return Buffer.concat([
    Buffer.from(`${id}.${timestamp}.`, 'utf8'),
    typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody,
  ]);
}

/**
 * One `v1a,<base64>` entry per private key, in the order given (the newest first: during a
 * rotation's overlap a receiver whose cached key set lacks the new key still finds the old one).
 */
export function ed25519SignatureEntries(
  privateKeys: readonly KeyObject[],
  id: string,
  timestamp: number,
  rawBody: Buffer | string,
): string[] {
  const content = signedContent(id, timestamp, rawBody);
  // Ed25519 takes no digest name: the algorithm hashes the message itself (RFC 8032).
  return privateKeys.map(
    (key) => `${ED25519_SIGNATURE_VERSION},${sign(null, content, key).toString('base64')}`,
  );
}

/** The JWKS entry of an Ed25519 public key. */
export function publicJwkOf(publicKey: KeyObject, kid: string): Ed25519PublicJwk {
  const { x } = publicKey.export({ format: 'jwk' });
  if (publicKey.asymmetricKeyType !== 'ed25519' || typeof x !== 'string') {
    throw new TypeError('an Ed25519 public key is needed');
  }
  return { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' };
}

/** The usable Ed25519 public keys of a key set; anything else in it is skipped, not an error. */
function ed25519KeysOf(jwks: readonly JsonWebKey[]): KeyObject[] {
  const keys: KeyObject[] = [];
  // Untyped callers may pass anything; Array.isArray would widen a readonly array to any[].
  const candidates: readonly (JsonWebKey | null | undefined)[] = Array.isArray(jwks) ? jwks : [];
  for (const jwk of candidates) {
    if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
      continue;
    }
    if (!BASE64URL.test(jwk.x) || Buffer.from(jwk.x, 'base64url').length !== 32) {
      continue;
    }
    try {
      keys.push(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }));
    } catch {
      // Not a point on the curve: no signature can verify under it.
    }
  }
  return keys;
}

function signaturesOf(header: string): Buffer[] {
  return header
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, value, ...rest]) => {
      return version === ED25519_SIGNATURE_VERSION && rest.length === 0 && BASE64.test(value ?? '');
    })
    .map(([, value]) => Buffer.from(value, 'base64'))
    .filter((signature) => signature.length === SIGNATURE_BYTES);
}

function isFresh(timestamp: string, toleranceSeconds: number, now: Date): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) {
    return false;
  }
  return Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp)) <= toleranceSeconds;
}

/**
 * Whether a delivery is authentic and fresh under the published keys: its time is within
 * `toleranceSeconds` of `now`, and some `v1a` entry of the header verifies under some key of the
 * set (one or two entries, one or two keys). Other entries (`v1,` HMAC) are ignored. Never throws:
 * malformed headers, entries or keys are simply not valid.
 */
export function verifyEd25519Webhook(
  rawBody: Buffer | string,
  headers: StandardWebhookCheck,
  publicJwks: readonly JsonWebKey[],
  options: { toleranceSeconds?: number; now?: Date } = {},
): boolean {
  try {
    const { id, timestamp, signature } = headers;
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
      return false;
    }
    const tolerance = options.toleranceSeconds ?? DEFAULT_TIMESTAMP_TOLERANCE_SECONDS;
    if (!isFresh(timestamp, tolerance, options.now ?? new Date())) {
      return false;
    }
    const content = signedContent(id, timestamp, rawBody);
    const keys = ed25519KeysOf(publicJwks);
    return signaturesOf(signature).some((received) =>
      keys.some((key) => verify(null, content, key, received)),
    );
  } catch {
    // A body of the wrong type from an untyped caller: not a valid delivery.
    return false;
  }
}
