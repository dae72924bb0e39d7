import { hash } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

/** Every identifier the service assigns is a type prefix plus a lowercase ULID (time-sortable). */
export const ID_PREFIXES = {
  tenant: 'ten',
  webhookEndpoint: 'wh',
  event: 'evt',
  delivery: 'del',
  apiKey: 'key',
  rejection: 'rej',
  user: 'usr',
  oauthClient: 'cli',
  accessToken: 'tok',
  oauthGrant: 'grt',
  refreshToken: 'rtk',
  portalLink: 'pl',
  portalSession: 'ps',
  webhookSigningKey: 'whk',
  /** A management action the audit trail records on a stream of its own (ADR 0047). */
  managementAction: 'act',
} as const;

export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

const nextUlid = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

const ULID_BODY = '[0-9a-hjkmnp-tv-z]{26}';

export function isId(prefix: IdPrefix, value: unknown): value is string {
  return typeof value === 'string' && new RegExp(`^${prefix}_${ULID_BODY}$`).test(value);
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * An id that is a function of what it names: the ULID's time part is `time`, its 80 random bits
 * come from SHA-256 of `parts`. Two engines naming the same thing at once get the same id, so
 * their writes meet on one stream and the log's optimistic concurrency settles the race.
 */
export function derivedId(prefix: IdPrefix, time: Date, parts: readonly string[]): string {
  // One-shot: no Hash object per delivery (one id is derived for each).
  const digest = hash('sha256', parts.join('\u0000'), 'buffer');
  let random = '';
  for (let bit = 0; bit < 80; bit += 5) {
    const byte = bit >> 3;
    const word = (digest[byte] << 8) | digest[byte + 1];
    random += CROCKFORD[(word >> (11 - (bit & 7))) & 31];
  }
  return `${prefix}_${encodeTime(time.getTime(), 10).toLowerCase()}${random}`;
}
