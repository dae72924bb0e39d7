import { consentPage } from './consent-page';
import { errorPage } from './error-page';
import { loginPage } from './login-page';

describe('pages', () => {
  it('escapes everything that comes from a request', () => {
    const html = loginPage({
      clientName: '<script>alert(1)</script>',
      authorizationRequest: 'state="><img src=x onerror=alert(1)>',
      csrfToken: 't',
      email: '"><b>x',
      error: '<i>bad</i>',
    });
    expect(html).not.toMatch(/<script>|<img|<b>|<i>/);
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('value="state=&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
  });

  it('labels the sign-in inputs and marks them for password managers', () => {
    const html = loginPage({ clientName: 'App', authorizationRequest: 'a=b', csrfToken: 't' });
    expect(html).toContain('<label for="email">Email</label>');
    expect(html).toMatch(/<input id="email"[^>]*autocomplete="username"/);
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toMatch(
      /<input id="password"[^>]*type="password" autocomplete="current-password"/,
    );
  });

  it('lists the scopes in words, with Allow and Deny', () => {
    const html = consentPage({
      clientName: 'App',
      userEmail: 'ada@example.com',
      granted: ['tenants:read'],
      withheld: ['sentinel:respond'],
      request: { client_id: 'cli_x', state: undefined },
      csrfToken: 't',
    });
    expect(html).toContain('Read tenant profiles and configuration.');
    expect(html).toContain('Trigger automated response actions.');
    expect(html).toContain('value="allow">Allow</button>');
    expect(html).toContain('value="deny">Deny</button>');
    expect(html).toContain('name="client_id" value="cli_x"');
    expect(html).not.toContain('name="state"');
  });

  it('says what went wrong on the error page', () => {
    expect(errorPage('Cannot continue', 'a <b> c')).toContain('a &lt;b&gt; c');
  });

  it("takes the console's look: its stylesheet, the product's header, no inline style", () => {
    const pages = [
      loginPage({ clientName: 'App', authorizationRequest: 'a=b', csrfToken: 't' }),
      consentPage({
        clientName: 'App',
        userEmail: 'ada@example.com',
        granted: ['webhooks:manage'],
        withheld: [],
        request: {},
        csrfToken: 't',
      }),
      errorPage('Cannot continue', 'why'),
    ];
    for (const html of pages) {
      expect(html).toContain('<link rel="stylesheet" href="../assets/theme.css">');
      expect(new URL('../assets/theme.css', 'https://auth.example/oauth/authorize').pathname).toBe(
        '/assets/theme.css',
      );
      expect(html).toContain('<header><strong>svc webhooks</strong></header>');
      expect(html).toMatch(/<main>\n<div class="card">/);
      expect(html).not.toMatch(/<style|style=|<script/);
    }
    expect(pages[0]).toContain('<button class="button-primary" type="submit">Sign in</button>');
    expect(pages[1]).toContain(
      'class="button-primary" type="submit" name="decision" value="allow"',
    );
    expect(pages[1]).toContain(
      'class="button-secondary" type="submit" name="decision" value="deny"',
    );
  });
});
