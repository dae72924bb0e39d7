import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthApplication } from '../../apps/auth/src/auth-application';
import {
  authorizePath,
  FormBrowser,
  launchChromium,
  newPkce,
  RunningApp,
  startApp,
} from '../support';

const STYLESHEET = 'body { color: #1b1f24; }\n';

/** The auth app with the pages' stylesheet looked for where the test says (an internal option). */
function startAuthWithStylesheet(candidates: string[]): Promise<RunningApp> {
  return startApp('auth', (config, logger) =>
    createAuthApplication(config, logger, { themeStylesheet: candidates }),
  );
}

/** The sign-in page of the console's client, which the auth app registers at start. */
const signInPath = () =>
  authorizePath({
    response_type: 'code',
    client_id: 'svc-console',
    redirect_uri: 'http://localhost:8080/console/callback',
    scope: 'webhooks:manage',
    code_challenge: newPkce().challenge,
    code_challenge_method: 'S256',
  });

/** The auth pages in the console's look (ADR 0042): its stylesheet, served by the auth app. */
describe("the auth pages' stylesheet", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'auth-theme-'));
    await writeFile(join(folder, 'theme.css'), STYLESHEET);
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('is linked by the sign-in page and served as CSS, which the CSP allows', async () => {
    const auth = await startAuthWithStylesheet([
      join(folder, 'missing', 'theme.css'),
      join(folder, 'theme.css'),
    ]);
    try {
      const page = await new FormBrowser(auth.baseUrl).get(signInPath());
      expect(page.status).toBe(200);
      const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page.text)?.[1];
      const pageUrl = new URL(signInPath(), auth.baseUrl);
      const stylesheetUrl = new URL(href!, pageUrl);
      expect(stylesheetUrl.pathname).toBe('/assets/theme.css');
      expect(page.headers.get('content-security-policy')).toBe(
        "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(page.text).toContain('<header><strong>svc webhooks</strong></header>');

      const stylesheet = await fetch(stylesheetUrl);
      expect(stylesheet.status).toBe(200);
      expect(stylesheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(stylesheet.headers.get('x-content-type-options')).toBe('nosniff');
      expect(stylesheet.headers.get('cache-control')).toBe('no-cache');
      expect(stylesheet.headers.get('etag')).toBeTruthy();
      expect(await stylesheet.text()).toBe(STYLESHEET);
    } finally {
      await auth.close();
    }
  });

  it('styles the page in a browser, with no CSP violation', async () => {
    const auth = await startAuthWithStylesheet([join(folder, 'theme.css')]);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const messages: string[] = [];
      page.on('console', (message) => messages.push(message.text()));
      await page.goto(new URL(signInPath(), auth.baseUrl).toString());
      expect(await page.evaluate('getComputedStyle(document.body).color')).toBe('rgb(27, 31, 36)');
      expect(messages.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
    } finally {
      await browser.close();
      await auth.close();
    }
  });

  it('may be absent: a 404 problem, and the pages work unstyled', async () => {
    const auth = await startAuthWithStylesheet([join(folder, 'missing', 'theme.css')]);
    try {
      const stylesheet = await fetch(`${auth.baseUrl}/assets/theme.css`);
      expect(stylesheet.status).toBe(404);
      expect(stylesheet.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const page = await new FormBrowser(auth.baseUrl).get(signInPath());
      expect(page.status).toBe(200);
      expect(page.text).toContain('autocomplete="current-password"');
    } finally {
      await auth.close();
    }
  });
});
