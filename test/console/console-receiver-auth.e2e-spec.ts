import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { ConsoleTenant, ConsoleTestBed, startConsoleTestBed } from '../support/console-harness';
import { endpointRequests } from '../support/endpoint-requests';
import { runAxe } from './axe-check';

const TLS = resolve(__dirname, '../fixtures/tls');
const pem = (name: string) => readFileSync(resolve(TLS, name), 'utf8');
const CLIENT_CERT = pem('client.pem');
const CLIENT_KEY = pem('client-key.pem');

const PASSWORD = 'basic-password-typed-in-the-console';
const ENDPOINT_URL = 'https://127.0.0.1:9/receiver-auth';

/**
 * Receiver authentication, retry schedule and timeout in the console (issue 34 item 5, ADR 0048),
 * in Debian's Chromium against the real apps: set with the keyboard, shown without a secret on
 * the endpoint page after saving and after a fresh load, replaced, refused with the API's problem
 * named next to its field, removed after a confirmation; the API holds what the console saved.
 */
describe('receiver authentication, retries and timeout in the console', () => {
  let bed: ConsoleTestBed;
  let tenant: ConsoleTenant;
  let endpointId: string;
  let requests: ReturnType<typeof endpointRequests>;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    bed = await startConsoleTestBed();
    tenant = await bed.newTenant();
    endpointId = (await bed.stack.registerEndpoint(tenant.key, ENDPOINT_URL)).id;
    requests = endpointRequests(bed.stack.api, tenant.key);
    context = await bed.browser.newContext();
    context.setDefaultTimeout(10_000);
    // Nothing from another origin: the console is served by the API alone.
    await context.route(
      (url) => url.origin !== new URL(bed.consoleUrl).origin,
      (route) => route.abort(),
    );
    page = await context.newPage();
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await bed?.close();
  });

  /** The endpoint's page, loaded afresh from a new portal link (the app starts again). */
  async function openEndpointPage(): Promise<void> {
    const link = await bed.portalLink(tenant.key);
    // Away first: a link differing from the address only after '#' would not load the page again.
    await page.goto('about:blank');
    await page.goto(link.replace('/console/#', `/console/endpoints/${endpointId}#`));
    await page.getByRole('heading', { level: 1, name: `Endpoint ${ENDPOINT_URL}` }).waitFor();
  }

  /** What the endpoint's details show under the term. */
  const detail = (term: string) =>
    page
      .locator('dl.details > div')
      .filter({ has: page.getByText(term, { exact: true }) })
      .locator('dd');

  const isFocused = (target: Locator) =>
    target.evaluate((element) => element === element.ownerDocument.activeElement);

  /**
   * Whether the focus reaches `target` within a few seconds. The console moves it in effects,
   * which Preact runs after the frame is painted: a loaded machine paints late, and a key typed
   * at once would go to the element that had the focus before.
   */
  async function focusReaches(target: Locator): Promise<boolean> {
    const until = Date.now() + 5_000;
    while (!(await isFocused(target))) {
      if (Date.now() > until) {
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return true;
  }

  /** Presses Tab (or Shift+Tab) until `target` has the focus. */
  async function tabTo(target: Locator, key = 'Tab'): Promise<void> {
    for (let stop = 0; !(await isFocused(target)); stop++) {
      if (stop === 150) {
        throw new Error(`the focus never reached ${String(target)}`);
      }
      await page.keyboard.press(key);
    }
  }

  const saved = async () => (await requests.read(endpointId)).body;

  const authPanel = () => page.getByRole('form', { name: 'Receiver authentication' });

  async function openAuthPanel(): Promise<Locator> {
    await page.getByRole('button', { name: 'Receiver authentication', exact: true }).click();
    await authPanel().waitFor();
    return authPanel();
  }

  it('sets Basic auth with the keyboard alone and shows the user name, never the password', async () => {
    await openEndpointPage();
    expect(await detail('Receiver authentication').textContent()).toBe('None: the signature only');
    expect(await detail('Retry schedule').textContent()).toBe('default');
    expect(await detail('Attempt timeout').textContent()).toBe('default');

    const open = page.getByRole('button', { name: 'Receiver authentication', exact: true });
    await tabTo(open);
    await page.keyboard.press('Enter');
    const panel = authPanel();
    const types = panel.getByRole('group', { name: 'How the receiver authenticates the service' });
    const none = types.getByRole('radio', { name: 'None: the signature only' });
    expect(await none.isChecked()).toBe(true);
    await tabTo(none);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(
      await types.getByRole('radio', { name: 'HTTP Basic (user name and password)' }).isChecked(),
    ).toBe(true);

    const username = panel.getByLabel('User name', { exact: true });
    const password = panel.getByLabel('Password', { exact: true });
    expect(await password.getAttribute('type')).toBe('password');
    expect(await password.getAttribute('autocomplete')).toBe('off');
    await tabTo(username);
    await page.keyboard.type('svc-console');
    await tabTo(password);
    await page.keyboard.type(PASSWORD);
    await tabTo(panel.getByRole('button', { name: 'Save' }));
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: 'The receiver authentication was saved: HTTP Basic.' })
      .waitFor();
    await authPanel().waitFor({ state: 'detached' });

    expect(await detail('Receiver authentication').textContent()).toBe(
      'HTTP Basic, user name svc-console',
    );
    expect(await page.content()).not.toContain(PASSWORD);
    await openEndpointPage();
    expect(await detail('Receiver authentication').textContent()).toBe(
      'HTTP Basic, user name svc-console',
    );
    expect(await page.content()).not.toContain(PASSWORD);

    expect((await saved()).auth).toEqual({ type: 'basic', username: 'svc-console' });
    const row = await requests.columnOf<Record<string, unknown>>(endpointId, 'auth');
    expect(row).toMatchObject({ type: 'basic', secret_ciphertext: expect.any(String) });
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
  }, 30_000);

  it('has no accessibility violation with the auth form open, each type shown', async () => {
    const panel = await openAuthPanel();
    const types = panel.getByRole('group', { name: 'How the receiver authenticates the service' });
    // Basic is chosen (the current type), its user name filled in and the password to give again.
    expect(await panel.getByLabel('User name', { exact: true }).inputValue()).toBe('svc-console');
    expect(await panel.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    for (const type of [
      'HTTP Basic (user name and password)',
      'Extra headers (such as an API token)',
      'OAuth 2.0 client credentials',
      'Mutual TLS (client certificate)',
    ]) {
      await types.getByRole('radio', { name: type }).check();
      const { passed, violations } = await runAxe(page);
      expect(passed).toBeGreaterThan(10);
      expect({ type, violations }).toEqual({ type, violations: [] });
    }
  }, 30_000);

  it('replaces Basic by mutual TLS from pasted PEMs, and shows the subject and expiry', async () => {
    // The panel is still open from the accessibility check, mutual TLS chosen.
    const panel = authPanel();
    await panel.getByLabel('Client certificate (PEM)').fill(CLIENT_CERT);
    await panel.getByLabel('Private key (PEM, unencrypted)').fill(CLIENT_KEY);
    await panel.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The receiver authentication was saved: Mutual TLS' })
      .waitFor();
    const shown = await detail('Receiver authentication').textContent();
    expect(shown).toContain('Mutual TLS (client certificate): subject');
    expect(shown).toContain('CN=svc-webhooks-delivery');
    expect(shown).toContain('Expires 2126-01-01 00:00:00 UTC');
    expect(shown).not.toMatch(/within 30 days|expired/);
    expect(await page.content()).not.toContain(CLIENT_KEY.split('\n')[1]);

    const { auth } = await saved();
    expect(auth).toMatchObject({
      type: 'mtls',
      subject: expect.stringContaining('CN=svc-webhooks-delivery'),
      not_after: '2126-01-01T00:00:00.000Z',
    });
    expect(shown).toContain(auth.subject);
    expect(shown).toContain(auth.fingerprint_sha256);
  }, 30_000);

  it("shows the API's 400 problems at the top of the form and next to their fields", async () => {
    const panel = await openAuthPanel();
    await panel.getByLabel('Client certificate (PEM)').fill(CLIENT_CERT);
    const key = panel.getByLabel('Private key (PEM, unencrypted)');
    await key.fill(pem('other-key.pem'));
    await panel.getByRole('button', { name: 'Save' }).click();
    const alert = panel.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Not saved\..*auth\.private_key: .*does not match/);
    expect(await focusReaches(alert)).toBe(true);
    expect(await key.getAttribute('aria-invalid')).toBe('true');
    expect(await key.getAttribute('aria-describedby')).toContain('auth-private-key-error');
    expect(await panel.locator('#auth-private-key-error').textContent()).toMatch(/does not match/);

    // A refused header: named at the top, and next to the row that has it.
    await panel.getByRole('radio', { name: 'Extra headers (such as an API token)' }).check();
    await panel.getByLabel('Header 1 name').fill('Authorization');
    await panel.getByLabel('Header 1 value').fill('Splunk 0000');
    await panel.getByRole('button', { name: 'Add a header' }).click();
    // The new row's name has the focus.
    expect(await focusReaches(panel.getByLabel('Header 2 name'))).toBe(true);
    await page.keyboard.type('Host');
    await panel.getByLabel('Header 2 value').fill('evil.example');
    await panel.getByRole('button', { name: 'Save' }).click();
    await panel.getByRole('alert').filter({ hasText: 'auth.headers.Host' }).waitFor();
    const hostName = panel.getByLabel('Header 2 name');
    expect(await hostName.inputValue()).toBe('Host');
    expect(await hostName.getAttribute('aria-invalid')).toBe('true');
    expect(await panel.getByLabel('Header 1 name').getAttribute('aria-invalid')).toBeNull();
    const hostError = await hostName.getAttribute('aria-describedby');
    expect(await panel.locator(`#${hostError}`).textContent()).not.toBe('');
    expect((await saved()).auth).toMatchObject({ type: 'mtls' });

    // Removing the refused row and saving sets the one header left.
    await panel.getByRole('button', { name: 'Remove header 2' }).click();
    expect(await focusReaches(panel.getByRole('button', { name: 'Add a header' }))).toBe(true);
    await panel.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The receiver authentication was saved: Extra headers.' })
      .waitFor();
    expect(await detail('Receiver authentication').textContent()).toBe(
      'Extra headers: Authorization',
    );
    expect((await saved()).auth).toEqual({ type: 'headers', header_names: ['Authorization'] });
  }, 30_000);

  it('removes the authentication after a confirmation', async () => {
    const panel = await openAuthPanel();
    await panel.getByRole('radio', { name: 'None: the signature only' }).check();
    await panel.getByRole('button', { name: 'Remove the authentication' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the receiver authentication?' });
    await dialog.waitFor();
    // The focus starts on Cancel, the harmless choice; cancelling keeps the authentication.
    expect(await focusReaches(dialog.getByRole('button', { name: 'Cancel' }))).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await saved()).auth).toMatchObject({ type: 'headers' });

    await panel.getByRole('button', { name: 'Remove the authentication' }).click();
    await dialog.getByRole('button', { name: 'Remove it' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The receiver authentication was removed.' })
      .waitFor();
    expect(await detail('Receiver authentication').textContent()).toBe('None: the signature only');
    expect((await saved()).auth).toBeNull();
    expect(await requests.columnOf(endpointId, 'auth')).toBeNull();
  }, 30_000);

  it('sets a retry schedule and a timeout, explains a refused entry, and goes back to the defaults', async () => {
    const open = async () => {
      await page.getByRole('button', { name: 'Retries and timeout', exact: true }).click();
      return page.getByRole('form', { name: 'Retries and timeout' });
    };
    await openEndpointPage();
    let panel = await open();
    const schedule = panel.getByLabel('Retry schedule (optional)');
    await schedule.fill('10s, 25h');
    await panel.getByLabel('Attempt timeout in seconds (optional)').fill('5');
    await panel.getByRole('button', { name: 'Save' }).click();
    await panel.getByRole('alert').filter({ hasText: 'retry_schedule[1]' }).waitFor();
    expect(await schedule.getAttribute('aria-invalid')).toBe('true');
    expect(await panel.locator('#policy-retry-schedule-error').textContent()).toMatch(/^entry 2: /);

    await schedule.fill('10s, 1m');
    await panel.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The retry schedule and timeout were saved.' })
      .waitFor();
    expect(await detail('Retry schedule').textContent()).toBe('10s, 1m (3 attempts)');
    expect(await detail('Attempt timeout').textContent()).toBe('5 seconds');
    expect(await saved()).toMatchObject({ retry_schedule: ['10s', '1m'], timeout_seconds: 5 });
    await openEndpointPage();
    expect(await detail('Retry schedule').textContent()).toBe('10s, 1m (3 attempts)');

    panel = await open();
    expect(await panel.getByLabel('Retry schedule (optional)').inputValue()).toBe('10s, 1m');
    await panel.getByLabel('Retry schedule (optional)').fill('');
    await panel.getByLabel('Attempt timeout in seconds (optional)').fill('');
    await panel.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'The retry schedule and timeout were saved.' })
      .waitFor();
    expect(await detail('Retry schedule').textContent()).toBe('default');
    expect(await saved()).toMatchObject({ retry_schedule: null, timeout_seconds: null });
  }, 30_000);

  it('says on the page when the client certificate expires within 30 days', async () => {
    // A certificate of 10 days, made here with the openssl CLI (as the fixtures were).
    const folder = mkdtempSync(join(tmpdir(), 'console-mtls-'));
    try {
      const made = spawnSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '10',
          '-subj',
          '/O=svc webhooks tests/CN=expiring-soon',
          '-keyout',
          join(folder, 'key.pem'),
          '-out',
          join(folder, 'cert.pem'),
        ],
        { encoding: 'utf8' },
      );
      expect(made.stderr && made.status !== 0 ? made.stderr : made.status).toBe(0);
      const certificate = readFileSync(join(folder, 'cert.pem'), 'utf8');
      const privateKey = readFileSync(join(folder, 'key.pem'), 'utf8');
      const set = await requests.update(endpointId, {
        auth: { type: 'mtls', certificate, private_key: privateKey },
      });
      expect(set.status).toBe(200);
      await openEndpointPage();
      const shown = await detail('Receiver authentication').textContent();
      expect(shown).toContain('CN=expiring-soon');
      expect(shown).toContain(`Expires within 30 days, on ${set.body.auth.not_after.slice(0, 10)}`);
      expect(shown).toContain('Set a new certificate before then.');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 30_000);
});
