import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The Standard Webhooks signature (standardwebhooks.com), sent beside the spec's
 * `X-SVC-Signature-256` (ADR 0024): it signs the message id and the send time with the body, so
 * a receiver that checks the time within a tolerance refuses a captured delivery replayed later.
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** How far a receiver lets a delivery's time be from its own clock (the specification's default). */
export const DEFAULT_TIMESTAMP_TOLERANCE_SECONDS = 300;

const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/**
 * The HMAC key of an endpoint secret. A secret in the Standard Webhooks form `whsec_<base64>` is
 * its decoded bytes, so any Standard Webhooks library verifies with the secret as registered;
 * any other secret is its UTF-8 bytes, as for `X-SVC-Signature-256` (libraries: `format: "raw"`).
 */
export function standardWebhookKey(secret: string): Buffer {
  if (secret.length === 0) {
    throw new RangeError('the webhook signing secret must not be empty');
  }
  const whsec = WHSEC.exec(secret);
  return whsec ? Buffer.from(whsec[1], 'base64') : Buffer.from(secret, 'utf8');
}

function sign(key: Buffer, id: string, timestamp: number, rawBody: Buffer | string): Buffer {
  return createHmac('sha256', key)
    .update(`${id}.${timestamp}.`)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest();
}

/**
 * The `webhook-signature` value: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` for each
 * secret, space-separated (the newest first; several while a rotation overlaps).
 */
export function standardWebhookSignature(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  rawBody: Buffer | string,
): string {
  return secrets
    .map(
      (secret) =>
        `v1,${sign(standardWebhookKey(secret), id, timestamp, rawBody).toString('base64')}`,
    )
    .join(' ');
}

export interface StandardWebhookCheck {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

/**
 * Whether a delivery is authentic and fresh: its time is within `toleranceSeconds` of `now`, and
 * one of the `v1` signatures in the header is that of (id, time, body) under `secret`, compared
 * in constant time. Never throws for bad headers.
 */
export function verifyStandardWebhook(
  rawBody: Buffer | string,
  headers: StandardWebhookCheck,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): boolean {
  const { id, timestamp, signature } = headers;
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
    return false;
  }
  if (!/^\d{1,12}$/.test(timestamp)) {
    return false;
  }
  const sent = Number(timestamp);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - sent) > (options.toleranceSeconds ?? DEFAULT_TIMESTAMP_TOLERANCE_SECONDS)) {
    return false;
  }
  const expected = sign(standardWebhookKey(secret), id, sent, rawBody);
  return signature.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) {
      return false;
    }
    const received = Buffer.from(value, 'base64');
    return received.length === expected.length && timingSafeEqual(received, expected);
  });
}
