import { consoleContentSecurityPolicy, consoleSecurityHeaders } from './console-security-headers';

describe('consoleContentSecurityPolicy', () => {
  it('allows the console its own files, and the authorization server for calls and sign-in', () => {
    expect(
      consoleContentSecurityPolicy({ issuer: 'https://auth.example.com/', frameAncestors: [] }),
    ).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        "connect-src 'self' https://auth.example.com; font-src 'self'; base-uri 'none'; " +
        "form-action 'self' https://auth.example.com; frame-ancestors 'none'",
    );
  });

  it('names the issuer by its origin only, whatever its path', () => {
    const policy = consoleContentSecurityPolicy({
      issuer: 'http://localhost:8081/tenant-auth',
      frameAncestors: [],
    });
    expect(policy).toContain("connect-src 'self' http://localhost:8081;");
    expect(policy).toContain("form-action 'self' http://localhost:8081;");
    expect(policy).not.toContain('tenant-auth');
  });

  it('lists the configured frame ancestors, space-separated', () => {
    expect(
      consoleContentSecurityPolicy({
        issuer: 'https://auth.example.com',
        frameAncestors: ["'self'", 'https://app.example.com'],
      }),
    ).toMatch(/; frame-ancestors 'self' https:\/\/app\.example\.com$/);
  });

  it('never allows inline code, eval, wildcards or other origins for scripts and styles', () => {
    const policy = consoleContentSecurityPolicy({
      issuer: 'https://a.example',
      frameAncestors: [],
    });
    expect(policy).not.toMatch(/unsafe-|\*/);
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self';");
  });
});

describe('consoleSecurityHeaders', () => {
  it('sends X-Frame-Options DENY only when nobody may frame the console', () => {
    const closed = consoleSecurityHeaders({ issuer: 'https://a.example', frameAncestors: [] });
    expect(closed).toMatchObject({
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
    });
    const framed = consoleSecurityHeaders({
      issuer: 'https://a.example',
      frameAncestors: ['https://app.example.com'],
    });
    expect(framed).not.toHaveProperty('x-frame-options');
    expect(framed['content-security-policy']).toContain('frame-ancestors https://app.example.com');
  });
});
