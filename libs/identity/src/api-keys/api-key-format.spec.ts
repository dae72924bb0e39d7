import {
  apiKeyHint,
  CREDENTIAL_PATTERN,
  generateApiKey,
  hashApiKey,
  hashesEqual,
  parseApiKey,
} from './api-key-format';

describe('API key format', () => {
  it('makes live and sandbox keys with 32 base62 characters', () => {
    expect(generateApiKey('live')).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(generateApiKey('test')).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
  });

  it('never repeats and uses the whole alphabet', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey('live'));
    expect(new Set(keys).size).toBe(keys.length);
    const characters = new Set(keys.join('').replace(/svc_live_/g, ''));
    expect(characters.size).toBe(62);
  });

  it('parses only well-formed keys', () => {
    expect(parseApiKey(generateApiKey('test'))).toEqual({ environment: 'test' });
    expect(parseApiKey('svc_live_short')).toBeNull();
    expect(parseApiKey(`svc_prod_${'a'.repeat(32)}`)).toBeNull();
    expect(parseApiKey(`svc_live_${'a'.repeat(31)}!`)).toBeNull();
    expect(parseApiKey(` svc_live_${'a'.repeat(32)}`)).toBeNull();
  });

  it('hashes deterministically to 64 hex characters and compares hashes', () => {
    const key = generateApiKey('live');
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashesEqual(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(hashesEqual(hashApiKey(key), hashApiKey(generateApiKey('live')))).toBe(false);
    expect(hashesEqual(hashApiKey(key), 'abcd')).toBe(false);
  });

  it('recognises credentials embedded in other text', () => {
    expect(CREDENTIAL_PATTERN.test(`token=${generateApiKey('live')}`)).toBe(true);
    expect(CREDENTIAL_PATTERN.test('svc_rt_abcdefghijklmnopqrstuvwxyz')).toBe(true);
    expect(CREDENTIAL_PATTERN.test('svc_live_nope')).toBe(false);
  });

  it('shows a four-character hint', () => {
    expect(apiKeyHint('svc_live_abcdefghijklmnopqrstuvwxyz012345')).toBe('2345');
  });
});
