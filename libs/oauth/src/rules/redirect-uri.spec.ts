import { checkRedirectUri, isRegisteredRedirectUri } from './redirect-uri';

describe('redirect URIs', () => {
  it.each([
    'https://app.example.com/callback',
    'https://app.example.com/cb?x=1',
    'http://127.0.0.1:8765/cb',
    'http://localhost/cb',
    'http://[::1]:9000/cb',
  ])('accepts %s', (uri) => {
    expect(checkRedirectUri(uri)).toBeNull();
  });

  it.each([
    ['http://app.example.com/cb', /https/],
    ['https://app.example.com/cb#frag', /fragment/],
    ['https://user:pw@app.example.com/cb', /user information/],
    ['https://*.example.com/cb', /wildcard/],
    ['/relative', /absolute/],
    ['javascript:alert(1)', /https/],
  ])('refuses %s', (uri, reason) => {
    expect(checkRedirectUri(uri)).toMatch(reason);
  });

  it('matches exactly, never by prefix, case or trailing slash', () => {
    const registered = ['https://app.example.com/callback'];
    expect(isRegisteredRedirectUri(registered, 'https://app.example.com/callback')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'https://app.example.com/callback/')).toBe(false);
    expect(isRegisteredRedirectUri(registered, 'https://app.example.com/callback?next=evil')).toBe(
      false,
    );
    expect(isRegisteredRedirectUri(registered, 'https://APP.example.com/callback')).toBe(false);
  });
});
