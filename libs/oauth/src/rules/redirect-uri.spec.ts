import { checkRedirectUri, isRegisteredRedirectUri } from './redirect-uri';

describe('redirect URIs', () => {
  it.each([
    'https://app.example.com/callback',
    'https://app.example.com/cb?x=1',
    'http://127.0.0.1:8765/cb',
    'http://127.0.0.1/cb',
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

  // RFC 8252 8.3: a name can resolve elsewhere; native apps must use the loopback IP literal.
  it.each([
    'http://localhost/cb',
    'http://localhost:8765/cb',
    'http://LOCALHOST:8765/cb',
    'http://localhost.:8765/cb',
    'http://app.localhost/cb',
    'https://localhost/cb',
  ])('refuses the host localhost in %s, naming the loopback IP literals', (uri) => {
    const problem = checkRedirectUri(uri);
    expect(problem).toMatch(/localhost/);
    expect(problem).toContain('http://127.0.0.1');
    expect(problem).toContain('http://[::1]');
    expect(problem).toContain('RFC 8252');
  });

  it('accepts the name localhost only where the operator configured the address', () => {
    const configured = { localhostAllowed: true };
    expect(checkRedirectUri('http://localhost:8080/console/callback', configured)).toBeNull();
    expect(checkRedirectUri('https://localhost/console/callback', configured)).toBeNull();
    expect(checkRedirectUri('http://app.localhost/callback', configured)).toMatch(/localhost/);
    expect(checkRedirectUri('http://localhost/cb#x', configured)).toMatch(/fragment/);
    expect(checkRedirectUri('http://console.example.com/callback', configured)).toMatch(/https/);
    expect(checkRedirectUri('http://localhost:8080/console/callback')).toMatch(/RFC 8252/);
  });

  it('matches exactly, never by prefix, case or trailing slash', () => {
    const registered = ['https://app.example.com/callback'];
    expect(isRegisteredRedirectUri(registered, 'https://app.example.com/callback')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'https://app.example.com/callback/')).toBe(false);
    expect(isRegisteredRedirectUri(registered, 'https://app.example.com/callback?next=evil')).toBe(
      false,
    );
    expect(isRegisteredRedirectUri(registered, 'https://APP.example.com/callback')).toBe(false);
    expect(isRegisteredRedirectUri(registered, 'https://app.example.com:8443/callback')).toBe(
      false,
    );
  });

  describe('loopback redirect URIs match with any port (RFC 8252 7.3)', () => {
    it.each([
      ['http://127.0.0.1/cb', 'http://127.0.0.1:51234/cb', true],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:51234/cb', true],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1/cb', true],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:8765/cb', true],
      ['http://127.0.0.1:8765/cb?app=1', 'http://127.0.0.1:1/cb?app=1', true],
      ['http://127.0.0.1:8765', 'http://127.0.0.1:9000', true],
      ['http://[::1]:8765/cb', 'http://[::1]:65535/cb', true],
      ['http://[::1]/cb', 'http://[::1]:4000/cb', true],
      // everything but the port is still exact
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:9000/cb/', false],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:9000/CB', false],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:9000/cb?x=1', false],
      ['http://127.0.0.1:8765/cb?app=1', 'http://127.0.0.1:9000/cb', false],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:9000/cb#x', false],
      ['http://127.0.0.1:8765/cb', 'https://127.0.0.1:9000/cb', false],
      ['http://127.0.0.1:8765/cb', 'http://[::1]:8765/cb', false],
      ['http://[::1]:8765/cb', 'http://127.0.0.1:8765/cb', false],
      ['http://127.0.0.1:8765/cb', 'http://localhost:8765/cb', false],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.2:8765/cb', false],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:99999/cb', false],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:/cb', false],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:8765@evil.example/cb', false],
      ['http://127.0.0.1:8765/cb', 'http://127.0.0.1.evil.example:8765/cb', false],
      // not loopback: the port is part of the exact string
      ['https://app.example.com:8443/cb', 'https://app.example.com:9443/cb', false],
      ['https://127.0.0.1:8443/cb', 'https://127.0.0.1:9443/cb', false],
    ])('registered %s, presented %s: %s', (registered, presented, matches) => {
      expect(isRegisteredRedirectUri([registered], presented)).toBe(matches);
    });
  });
});
