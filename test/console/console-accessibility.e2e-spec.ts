import type { BrowserContext, Locator, Page } from 'playwright-core';
import { OAuthClientsService } from '@svc/oauth';
import { authorizePath, http, newPkce } from '../support';
import { ConsoleTestBed, ConsoleTenant, startConsoleTestBed } from '../support/console-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';
import { runAxe } from './axe-check';

/**
 * The console for everyone (issue 31, items 5 and 7; ADR 0042): axe-core finds no serious or
 * critical violation on any page, the auth server's included, and the main flows work with the
 * keyboard alone, the focus always visible, a refused input explained next to its field.
 */

describe('the console with assistive technology and the keyboard alone, in Chromium', () => {
  let bed: ConsoleTestBed;
  let receiver: HttpsReceiver;
  let failingReceiver: HttpsReceiver;
  let tenant: ConsoleTenant;
  let endpoint: { id: string; url: string };
  let eventId: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    bed = await startConsoleTestBed();
    receiver = await startHttpsReceiver();
    failingReceiver = await startHttpsReceiver({ behaviour: { status: 503, body: 'down' } });
    tenant = await bed.newTenant();
    const url = `${receiver.url}/hooks`;
    endpoint = { id: (await bed.stack.registerEndpoint(tenant.key, url)).id, url };
    await bed.stack.registerEndpoint(tenant.key, `${failingReceiver.url}/hooks`);
    // One event, delivered to the first endpoint and abandoned by the second: every page has data.
    eventId = (await bed.stack.publish(tenant.tenantId)).id;
    const get = async (path: string) =>
      (await http(bed.stack.api.baseUrl, 'GET', path, { key: tenant.key })).body?.data ?? [];
    await waitFor(
      async () =>
        (await get(`/v1/webhooks/${endpoint.id}/attempts`)).length > 0 &&
        (await get('/v1/deliveries?status=abandoned')).length > 0,
      { what: 'one delivery made and one abandoned', timeoutMs: 20_000 },
    );
  }, 90_000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  afterAll(async () => {
    await bed?.close();
    await receiver?.close();
    await failingReceiver?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await bed.browser.newContext();
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    return context.newPage();
  }

  /** A writable portal session opened at one of the console's paths. */
  async function openConsole(path = '', options: { return_url?: string } = {}): Promise<Page> {
    const link = await bed.portalLink(tenant.key, options);
    const page = await newPage();
    await page.goto(link.replace('/console/#', `/console/${path}#`));
    return page;
  }

  /**
   * Waits for the page's heading. A wait that fails says where the page is and which headings it
   * shows: CI once waited 10 s for "Endpoints" on a portal link's first page, which never
   * happened here in a file run alone.
   */
  async function heading(page: Page, name: string): Promise<void> {
    try {
      await page.getByRole('heading', { level: 1, name }).waitFor();
    } catch (error) {
      const shown = await page
        .getByRole('heading')
        .allTextContents()
        .catch(() => []);
      throw new Error(
        `no heading "${name}" at ${page.url()}; headings shown: ${JSON.stringify(shown)}`,
        { cause: error },
      );
    }
  }

  /** No serious or critical violation; on failure, every violation found is printed. */
  async function expectAccessible(page: Page, what: string): Promise<void> {
    const { passed, violations } = await runAxe(page);
    expect(passed).toBeGreaterThan(10);
    const serious = violations.filter((violation) =>
      ['serious', 'critical'].includes(violation.impact ?? ''),
    );
    // On failure, every violation found (minor and moderate too) is printed.
    expect(serious.length === 0 ? 'none serious' : { what, violations }).toBe('none serious');
  }

  it("has no serious violation on the sign-in page, the auth server's sign-in and consent pages", async () => {
    const page = await newPage();
    await page.goto(bed.consoleUrl);
    await heading(page, 'Webhooks console');
    await expectAccessible(page, 'the console sign-in page');

    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.toString().startsWith(bed.issuer));
    await page.getByLabel('Email').waitFor();
    await expectAccessible(page, "the auth server's sign-in page");
    await page.getByLabel('Email').fill(tenant.user.email);
    await page.getByLabel('Password').fill(tenant.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The console is first party: signed in, the user is back without a consent page.
    await heading(page, 'Endpoints');
    await page.getByRole('link', { name: endpoint.url }).waitFor();
    await expectAccessible(page, 'the endpoints page, signed in as a user');

    // A third-party client asks for consent: the page, with the session just opened.
    const client = await new OAuthClientsService(bed.stack.api.dataSource).create({
      name: 'Partner App',
      redirectUris: ['http://127.0.0.1:9/callback'],
    });
    const authorize = authorizePath({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: 'http://127.0.0.1:9/callback',
      scope: 'webhooks:manage',
      code_challenge: newPkce().challenge,
      code_challenge_method: 'S256',
      state: 'accessibility',
    });
    await page.goto(`${bed.issuer}${authorize}`);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await expectAccessible(page, "the auth server's consent page");
  }, 60_000);

  const signedInPages: [string, () => string, (page: Page) => Promise<void>][] = [
    [
      'the endpoints page',
      () => '',
      // Both rows' health cells filled in: each shows its last attempt's time.
      (page) => page.locator('main tbody time').nth(1).waitFor(),
    ],
    [
      'the endpoint page, with attempts and charts',
      () => `endpoints/${endpoint.id}`,
      async (page) => {
        await page
          .getByRole('table', { name: 'Attempts to this endpoint, newest first' })
          .waitFor();
        await page.locator('figure.chart-figure svg').first().waitFor();
      },
    ],
    [
      'the registration form',
      () => 'endpoints/new',
      (page) => page.getByRole('checkbox', { name: /^Every alert event/ }).waitFor(),
    ],
    [
      'the undelivered view',
      () => 'undelivered',
      (page) => page.getByRole('link', { name: eventId }).waitFor(),
    ],
    ['the event search', () => 'events', (page) => page.getByLabel('Event id').waitFor()],
    [
      "an event's deliveries",
      () => `events/${eventId}`,
      (page) =>
        page.getByRole('table', { name: 'Deliveries of the event, one per endpoint' }).waitFor(),
    ],
    [
      'the event-type catalogue',
      () => 'event-types',
      (page) => page.getByRole('heading', { level: 3, name: 'alert.created' }).waitFor(),
    ],
  ];

  it.each(signedInPages)(
    'has no serious violation on %s',
    async (what, path, ready) => {
      const page = await openConsole(path());
      await ready(page);
      await expectAccessible(page, what);
    },
    60_000,
  );

  it("has no serious violation in the endpoint's action panels and its dialog", async () => {
    const page = await openConsole(`endpoints/${endpoint.id}`);
    for (const action of [
      'Send a test event',
      'Edit events, rate limit, signatures and order',
      'Rotate the secret',
      'Replay a time range',
      'Recover',
    ]) {
      await page.getByRole('button', { name: action, exact: true }).click();
      await page.getByRole('button', { name: action, exact: true, expanded: true }).waitFor();
      await expectAccessible(page, `the panel "${action}"`);
    }
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete this endpoint?' }).waitFor();
    await expectAccessible(page, 'the delete dialog');
  }, 60_000);

  it('has no serious violation on the pages that end a session', async () => {
    const refused = await newPage();
    await refused.goto(`${bed.consoleUrl}#portal=svc_pl_not-a-link`);
    await heading(refused, 'This console link cannot be opened');
    await expectAccessible(refused, 'the refused link page');

    const signedOut = await openConsole('', { return_url: 'http://localhost/back' });
    await signedOut.getByRole('link', { name: endpoint.url }).waitFor();
    await signedOut.getByRole('button', { name: 'Sign out' }).click();
    await heading(signedOut, 'You have signed out');
    await expectAccessible(signedOut, 'the signed-out page');

    const expiring = await bed.newTenant();
    const link = await bed.portalLink(expiring.key, { return_url: 'http://localhost/back' });
    const expired = await newPage();
    await expired.goto(link);
    await expired.getByText('No endpoints yet.').waitFor();
    await bed.stack.api.dataSource.query(
      `UPDATE portal_sessions SET expires_at = now() - interval '1 second' WHERE tenant_id = $1`,
      [expiring.tenantId],
    );
    await expired.getByRole('link', { name: 'Event types' }).click();
    await heading(expired, 'Your session has expired');
    await expectAccessible(expired, 'the expired session page');
  }, 60_000);

  /** The focused element's description and focus indicator. */
  const focusRing = (page: Page) =>
    page.evaluate<{
      element: string;
      outline: string;
      boxShadow: string;
      ownControl: boolean;
    }>(`(() => {
      const element = document.activeElement;
      const style = getComputedStyle(element);
      return {
        element: element.tagName + ' ' + (element.getAttribute('aria-label') || element.textContent || element.id).trim().slice(0, 60),
        outline: style.outlineStyle + ' ' + style.outlineWidth,
        boxShadow: style.boxShadow,
        // The focus is on a part of the browser's own control (a date field's calendar button)
        // that is not :focus itself, and has the browser's own indicator.
        ownControl: !element.matches(':focus'),
      };
    })()`);

  const isFocused = (target: Locator) =>
    target.evaluate((element) => element === element.ownerDocument.activeElement);

  async function expectFocusVisible(page: Page): Promise<void> {
    const ring = await focusRing(page);
    const visible =
      ring.ownControl || !/^none|\b0px$/.test(ring.outline) || ring.boxShadow !== 'none';
    expect(visible ? 'visible' : ring).toBe('visible');
  }

  /**
   * Presses Tab (or Shift+Tab) until `target` has the focus, checking at each stop that the
   * focused element shows it (an outline or a shadow).
   */
  async function tabTo(page: Page, target: Locator, key = 'Tab'): Promise<void> {
    for (let stop = 0; !(await isFocused(target)); stop++) {
      if (stop === 150) {
        throw new Error(`the focus never reached ${String(target)}`);
      }
      await page.keyboard.press(key);
      if (!(await page.evaluate<boolean>('document.activeElement === document.body'))) {
        await expectFocusVisible(page);
      }
    }
  }

  it('chooses the delivery order with the keyboard alone, at registration and in the edit panel', async () => {
    const orderingTenant = await bed.newTenant();
    const page = await newPage();
    await page.goto(await bed.portalLink(orderingTenant.key));
    await heading(page, 'Endpoints');
    await page.getByRole('link', { name: 'Register an endpoint' }).click();
    await heading(page, 'Step 1 of 2: register an endpoint');
    const url = `${receiver.url}/ordered`;
    await page.getByLabel('URL', { exact: true }).fill(url);
    await page.getByRole('checkbox', { name: /^Every alert event/ }).check();

    // A group named by its legend, the API's default chosen; Tab reaches the chosen button only,
    // and an arrow key chooses the next.
    const registration = page.getByRole('group', { name: 'Delivery order' });
    const anyOrder = registration.getByRole('radio', { name: 'Any order (faster)' });
    const fifo = registration.getByRole('radio', { name: 'One at a time, in order (FIFO)' });
    expect(await anyOrder.isChecked()).toBe(true);
    expect(await registration.getAttribute('aria-describedby')).toBe('register-ordering-hint');
    await tabTo(page, anyOrder);
    await page.keyboard.press('ArrowDown');
    expect(await fifo.isChecked()).toBe(true);
    await tabTo(page, page.getByRole('button', { name: 'Register the endpoint' }));
    await page.keyboard.press('Enter');
    await heading(page, 'Step 2 of 2: send a test event');
    const { body: listed } = await http(bed.stack.api.baseUrl, 'GET', '/v1/webhooks', {
      key: orderingTenant.key,
    });
    expect(listed.data.map((each: { ordering: string }) => each.ordering)).toEqual(['fifo']);
    const endpointId = listed.data[0].id as string;

    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await heading(page, `Endpoint ${url}`);
    expect(await page.getByText('One at a time, in order (FIFO)').count()).toBe(1);
    const edit = 'Edit events, rate limit, signatures and order';
    await tabTo(page, page.getByRole('button', { name: edit, exact: true }));
    await page.keyboard.press('Enter');
    const editing = page.getByRole('group', { name: 'Delivery order' });
    const fifoInPanel = editing.getByRole('radio', { name: 'One at a time, in order (FIFO)' });
    await fifoInPanel.waitFor();
    expect(await fifoInPanel.isChecked()).toBe(true);
    await expectAccessible(page, 'the edit panel of a FIFO endpoint');
    await tabTo(page, fifoInPanel);
    await page.keyboard.press('ArrowUp');
    expect(await editing.getByRole('radio', { name: 'Any order (faster)' }).isChecked()).toBe(true);
    await tabTo(page, page.getByRole('button', { name: 'Save' }));
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'The endpoint was saved.' }).waitFor();
    expect(await page.getByText('Any order', { exact: true }).count()).toBe(1);
    const { body: saved } = await http(bed.stack.api.baseUrl, 'GET', `/v1/webhooks/${endpointId}`, {
      key: orderingTenant.key,
    });
    expect(saved.ordering).toBe('unordered');
  }, 60_000);

  it('registers, tests, rotates and deletes with the keyboard alone, explaining a refused URL', async () => {
    const keyboardTenant = await bed.newTenant();
    const page = await newPage();
    await page.goto(await bed.portalLink(keyboardTenant.key));
    await heading(page, 'Endpoints');

    await tabTo(page, page.getByRole('link', { name: 'Register an endpoint' }));
    await page.keyboard.press('Enter');
    await heading(page, 'Step 1 of 2: register an endpoint');
    const urlField = page.getByLabel('URL', { exact: true });
    await tabTo(page, urlField);
    await page.keyboard.type('http://example.com/hooks');
    await tabTo(page, page.getByRole('checkbox', { name: /^Every alert event/ }));
    await page.keyboard.press('Space');
    await tabTo(page, page.getByRole('button', { name: 'Register the endpoint' }));
    await page.keyboard.press('Enter');

    // Item 7: the API's problem, in plain words, at the top of the form and next to the field.
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Not registered.');
    expect(await urlField.getAttribute('aria-invalid')).toBe('true');
    const fieldError = page.locator('#register-url-error');
    expect(await urlField.getAttribute('aria-describedby')).toContain('register-url-error');
    expect(await fieldError.textContent()).toMatch(/https/i);
    expect(await alert.textContent()).toContain(await fieldError.textContent());

    const url = `${receiver.url}/keyboard`;
    await tabTo(page, urlField, 'Shift+Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type(url);
    await tabTo(page, page.getByRole('button', { name: 'Register the endpoint' }));
    await page.keyboard.press('Enter');
    await heading(page, 'Step 2 of 2: send a test event');
    await tabTo(page, page.getByRole('button', { name: 'Send the test event' }));
    await page.keyboard.press('Space');
    await page.getByRole('status').filter({ hasText: 'The test event was delivered.' }).waitFor();

    const navigation = page.getByRole('navigation', { name: 'Console' });
    await tabTo(page, navigation.getByRole('link', { name: 'Endpoints' }), 'Shift+Tab');
    await page.keyboard.press('Enter');
    await heading(page, 'Endpoints');
    await tabTo(page, page.getByRole('link', { name: url }));
    await page.keyboard.press('Enter');
    await heading(page, `Endpoint ${url}`);

    await tabTo(page, page.getByRole('button', { name: 'Rotate the secret' }));
    await page.keyboard.press('Enter');
    await tabTo(page, page.getByRole('button', { name: 'Rotate now' }));
    await page.keyboard.press('Enter');
    const newSecret = page.getByLabel('New signing secret');
    await newSecret.waitFor();
    expect(await newSecret.inputValue()).not.toBe('');

    // The confirmation is modal: the focus stays inside it (past its last control it leaves the
    // page for the browser's own controls, the body then focused, and comes back to its first),
    // and Escape closes it, giving the focus back to the button that opened it.
    const deleteButton = page.getByRole('button', { name: 'Delete', exact: true });
    await tabTo(page, deleteButton, 'Shift+Tab');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await dialog.waitFor();
    const stops: string[] = [];
    for (let stop = 0; stop < 6; stop++) {
      const where = await dialog.evaluate((element) => {
        const focused = element.ownerDocument.activeElement;
        return element.contains(focused)
          ? 'dialog'
          : focused === element.ownerDocument.body
            ? 'body'
            : 'page';
      });
      stops.push(`${where}: ${(await focusRing(page)).element}`);
      await page.keyboard.press('Tab');
    }
    expect(stops.filter((stop) => stop.startsWith('page'))).toEqual([]);
    expect(stops.filter((stop) => stop.startsWith('dialog')).length).toBeGreaterThanOrEqual(4);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await isFocused(deleteButton)).toBe(true);

    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await tabTo(page, page.getByLabel("Type the endpoint's URL to confirm"));
    await page.keyboard.type(url);
    await tabTo(page, page.getByRole('button', { name: 'Delete the endpoint' }));
    await page.keyboard.press('Enter');
    await heading(page, 'Endpoints');
    await page.getByText('No endpoints yet.').waitFor();
  }, 90_000);
});
