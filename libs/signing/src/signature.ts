import { createHmac, timingSafeEqual } from 'node:crypto';

/** Spec 6.3: the header value is this prefix followed by the lowercase hex digest. */
export const SIGNATURE_PREFIX = 'sha256=';

/**
 * Anything else is refused before comparing: the shape of a header says nothing about the
 * secret, so checking it first leaks nothing, and it guarantees the decoded digest is 32 bytes.
 */
const SIGNATURE_PATTERN = /^sha256=[0-9a-f]{64}$/;

function digest(rawBody: Buffer | string, secret: string): Buffer {
  if (secret.length === 0) {
    // An empty key makes every signature forgeable; a misconfiguration must not look like success.
    throw new RangeError('the webhook signing secret must not be empty');
  }
  // A string is encoded as UTF-8 here; callers that hold the received bytes should pass the Buffer,
  // because any decode and re-encode (or JSON re-serialisation) can change the bytes signed.
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest();
}

/** The `X-SVC-Signature-256` value: HMAC-SHA256 of the exact body bytes, keyed with the secret. */
export function signatureHeaderValue(rawBody: Buffer | string, secret: string): string {
  return SIGNATURE_PREFIX + digest(rawBody, secret).toString('hex');
}

/**
 * Whether `header` is the signature of `rawBody` under `secret`. Never throws for a bad header
 * (missing, malformed, wrong prefix, uppercase hex, wrong length): it is simply not valid. The
 * digests are compared with `timingSafeEqual`, so the time taken does not reveal how many leading
 * bytes of a forged signature were right.
 */
export function verifySignature(
  rawBody: Buffer | string,
  header: string | undefined,
  secret: string,
): boolean {
  const expected = digest(rawBody, secret);
  // Plain JavaScript callers may pass a repeated header (string[]) or anything else.
  if (typeof header !== 'string' || !SIGNATURE_PATTERN.test(header)) {
    return false;
  }
  const received = Buffer.from(header.slice(SIGNATURE_PREFIX.length), 'hex');
  return received.length === expected.length && timingSafeEqual(received, expected);
}
