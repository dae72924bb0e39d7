import {
  DEFAULT_TIMESTAMP_TOLERANCE_SECONDS,
  ED25519_SIGNATURE_VERSION,
  StandardWebhookCheck,
  verifyEd25519Webhook,
  verifySignature,
  verifyStandardWebhook,
} from '@svc/signing';
import type { IncomingHttpHeaders } from 'node:http';
import type { JwksKeySource } from './jwks-key-source';

/** Node lowercases incoming header names (these are DELIVERY_HEADERS of @svc/contracts). */
export const SIGNATURE_HEADER = 'x-svc-signature-256';

/** The schemes an endpoint can be signed with (its `signature_schemes`, ADR 0044). */
export type VerifiedScheme = 'hmac-sha256' | 'ed25519';

export interface Verification {
  /** The scheme that made the delivery authentic (Ed25519 is checked first), or false. */
  verified: VerifiedScheme | false;
  /** Every scheme whose signature verified: a delivery to an endpoint with both carries both. */
  schemes: VerifiedScheme[];
  /** When not verified: why, as the 401 says it. */
  failure?: string;
}

export interface VerificationKeys {
  /** The endpoint's HMAC secrets (several during a rotation, ADR 0026); empty: none. */
  secrets: readonly string[];
  /** The service's published Ed25519 keys; undefined: Ed25519 signatures are not checked. */
  jwks?: JwksKeySource;
  /** How far the signed `webhook-timestamp` may be from `now`, in seconds. Default 300. */
  toleranceSeconds?: number;
  now?: Date;
}

/**
 * Whether a delivery is authentic and fresh: a `v1a` entry verifies under a published key, or
 * (with secrets) the HMAC checks pass. Both schemes sign the `webhook-timestamp`, so a captured
 * delivery stops verifying once it is older than the tolerance. Never throws or rejects.
 */
export async function verifyDelivery(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  keys: VerificationKeys,
): Promise<Verification> {
  try {
    const check = { toleranceSeconds: keys.toleranceSeconds, now: keys.now ?? new Date() };
    const standardHeaders: StandardWebhookCheck = {
      id: single(headers['webhook-id']),
      timestamp: single(headers['webhook-timestamp']),
      signature: single(headers['webhook-signature']),
    };
    const ed25519 = keys.jwks
      ? await verifiesWithPublishedKeys(rawBody, standardHeaders, keys.jwks, check)
      : false;
    const hmacFailure =
      keys.secrets.length > 0
        ? hmacFailureOf(rawBody, headers, standardHeaders, keys.secrets, check)
        : undefined;
    const schemes: VerifiedScheme[] = [
      ...(ed25519 ? (['ed25519'] as const) : []),
      ...(keys.secrets.length > 0 && hmacFailure === undefined ? (['hmac-sha256'] as const) : []),
    ];
    if (schemes.length > 0) {
      return { verified: schemes[0], schemes };
    }
    return {
      verified: false,
      schemes,
      failure: hmacFailure ?? ed25519FailureOf(standardHeaders, check),
    };
  } catch {
    return { verified: false, schemes: [], failure: 'invalid signature' };
  }
}

type FreshnessCheck = { toleranceSeconds?: number; now: Date };

async function verifiesWithPublishedKeys(
  rawBody: Buffer,
  headers: StandardWebhookCheck,
  jwks: JwksKeySource,
  check: FreshnessCheck,
): Promise<boolean> {
  if (!ed25519EntriesIn(headers.signature)) {
    return false;
  }
  if (verifyEd25519Webhook(rawBody, headers, await jwks.keys(), check)) {
    return true;
  }
  // Signed by no key we hold: perhaps by one published since the keys were cached (a rotation).
  // A stale time fails under any key, so it triggers no fetch.
  if (!isFresh(headers.timestamp, check) || !(await jwks.refreshForUnknownKey())) {
    return false;
  }
  return verifyEd25519Webhook(rawBody, headers, await jwks.keys(), check);
}

/** Why the HMAC checks fail, or undefined when they pass (the checks of the spec, ADR 0024). */
function hmacFailureOf(
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  standardHeaders: StandardWebhookCheck,
  secrets: readonly string[],
  check: FreshnessCheck,
): string | undefined {
  const signature = single(headers[SIGNATURE_HEADER]);
  if (!secrets.some((secret) => verifySignature(rawBody, signature, secret))) {
    return 'invalid signature';
  }
  // The spec's signature covers the body only: a captured delivery would verify forever. The
  // Standard Webhooks signature also covers the send time, which must be recent.
  const fresh = secrets.some((secret) =>
    verifyStandardWebhook(rawBody, standardHeaders, secret, check),
  );
  return fresh ? undefined : 'stale or unsigned delivery time';
}

function ed25519FailureOf(headers: StandardWebhookCheck, check: FreshnessCheck): string {
  return isFresh(headers.timestamp, check)
    ? 'invalid signature'
    : 'stale or unsigned delivery time';
}

function ed25519EntriesIn(signature: string | undefined): boolean {
  return (signature ?? '')
    .split(' ')
    .some((entry) => entry.startsWith(`${ED25519_SIGNATURE_VERSION},`));
}

function isFresh(timestamp: string | undefined, check: FreshnessCheck): boolean {
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) {
    return false;
  }
  const tolerance = check.toleranceSeconds ?? DEFAULT_TIMESTAMP_TOLERANCE_SECONDS;
  return Math.abs(Math.floor(check.now.getTime() / 1000) - Number(timestamp)) <= tolerance;
}

const single = (value: string | string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;
