import { CREDENTIAL_PATTERN } from '../api-keys/api-key-format';
import {
  generatePortalLinkToken,
  generatePortalSessionToken,
  hashPortalToken,
  isAcceptableReturnUrl,
  isPortalLinkToken,
  isPortalSessionToken,
  looksLikePortalSessionToken,
  RETURN_URL_MAX_LENGTH,
} from './portal-token-format';

describe('portal token format', () => {
  it('makes link and session tokens of their prefix and 43 base64url characters', () => {
    expect(generatePortalLinkToken()).toMatch(/^svc_pl_[A-Za-z0-9_-]{43}$/);
    expect(generatePortalSessionToken()).toMatch(/^svc_ps_[A-Za-z0-9_-]{43}$/);
  });

  it('never repeats', () => {
    const tokens = Array.from({ length: 2000 }, generatePortalSessionToken);
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('tells the two kinds apart and refuses anything malformed', () => {
    const link = generatePortalLinkToken();
    const session = generatePortalSessionToken();
    expect(isPortalLinkToken(link)).toBe(true);
    expect(isPortalSessionToken(session)).toBe(true);
    expect(isPortalLinkToken(session)).toBe(false);
    expect(isPortalSessionToken(link)).toBe(false);
    expect(isPortalSessionToken(`${session}x`)).toBe(false);
    expect(isPortalSessionToken(session.slice(0, -1))).toBe(false);
    expect(isPortalSessionToken(` ${session}`)).toBe(false);
    expect(isPortalLinkToken(`svc_pl_${'a'.repeat(42)}!`)).toBe(false);
    expect(looksLikePortalSessionToken('svc_ps_short')).toBe(true);
    expect(looksLikePortalSessionToken(link)).toBe(false);
  });

  it('stores a SHA-256 digest: deterministic, 64 hex characters, never the token', () => {
    const token = generatePortalLinkToken();
    expect(hashPortalToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashPortalToken(token)).toBe(hashPortalToken(token));
    expect(hashPortalToken(token)).not.toBe(hashPortalToken(generatePortalLinkToken()));
    expect(hashPortalToken(token)).not.toContain(token.slice('svc_pl_'.length));
  });

  it('is recognised as a credential wherever it appears, for redaction and refusal', () => {
    expect(CREDENTIAL_PATTERN.test(`?token=${generatePortalSessionToken()}`)).toBe(true);
    expect(CREDENTIAL_PATTERN.test(`#portal=${generatePortalLinkToken()}`)).toBe(true);
    expect(CREDENTIAL_PATTERN.test('svc_ps_')).toBe(false);
  });
});

describe('portal return URL', () => {
  it.each([
    'https://app.example.com/settings/webhooks',
    'https://app.example.com:8443/x?tab=webhooks#top',
    'http://localhost:3000/back',
    'http://127.0.0.1/back',
    'http://[::1]:8080/',
  ])('accepts %s', (url) => {
    expect(isAcceptableReturnUrl(url)).toBe(true);
  });

  it.each([
    ['a relative path', '/settings'],
    ['plain http elsewhere', 'http://app.example.com/'],
    ['a script', 'javascript:alert(1)'],
    ['a data URL', 'data:text/html,hi'],
    ['user information', 'https://user:pass@app.example.com/'],
    ['not a URL', 'app.example.com'],
    ['an over-long address', `https://app.example.com/${'a'.repeat(RETURN_URL_MAX_LENGTH)}`],
  ])('refuses %s', (_, url) => {
    expect(isAcceptableReturnUrl(url)).toBe(false);
  });
});
