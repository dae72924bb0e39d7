import { monotonicFactory } from 'ulid';

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
