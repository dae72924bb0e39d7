import { ApiKeysService } from '@svc/identity';
import { createServer, Server } from 'node:http';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { freePort, http, RunningApi, startApi } from '../support';
import { ConsoleTestBed, ConsoleTenant, startConsoleTestBed } from '../support/console-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

/**
 * Portal sessions in Chromium (issue 31, items 2, 4, 7; ADR 0042): in an iframe of another origin,
 * the token kept nowhere, one use per link, read only, expired, tenants and environments apart,
 * every API answer shown as text under the console's CSP.
 */

/** Shown by the receiver that fails: markup that would run if the console rendered it as HTML. */
const MARKUP = '<img src=x onerror=alert(1)><script>alert(2)</script>';
const ACTION_NAMES = /register|delete|send (a|the) test event|edit|rotate|replay|recover|save/i;

/** What Chromium puts in a frame whose document it refused to show. */
const REFUSED_FRAME = 'chrome-error://chromewebdata/';

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The platform's pages: one embedding a console link in an iframe, one to return to. */
function startPlatform(port: number): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://platform');
    const src = url.searchParams.get('src');
    const body =
      url.pathname === '/embed' && src
        ? `<h1>Platform</h1><iframe title="Webhooks console" src="${escapeAttribute(src)}" width="1000" height="700"></iframe>`
        : '<h1>Back on the platform</h1>';
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html lang="en"><title>Platform</title>${body}</html>`);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** A page whose CSP reports (events in every frame, console messages) are collected. */
type WatchedPage = { page: Page; context: BrowserContext; cspReports: () => Promise<string[]> };

describe('the console in a portal session, in Chromium', () => {
  let bed: ConsoleTestBed;
  let platform: Server;
  let platformOrigin: string;
  let receiver: HttpsReceiver;
  let failingReceiver: HttpsReceiver;
  let [tenantA, tenantB]: ConsoleTenant[] = [];
  let [endpointA, endpointB]: { id: string; url: string }[] = [];
  let failing: { tenant: ConsoleTenant; endpointId: string; url: string; eventId: string };
  const contexts: BrowserContext[] = [];

  const register = async (key: string, url: string) => ({
    ...(await bed.stack.registerEndpoint(key, url)),
    url,
  });

  beforeAll(async () => {
    const platformPort = await freePort();
    platformOrigin = `http://localhost:${platformPort}`;
    platform = await startPlatform(platformPort);
    bed = await startConsoleTestBed({ CONSOLE_FRAME_ANCESTORS: platformOrigin });
    receiver = await startHttpsReceiver();
    failingReceiver = await startHttpsReceiver({ behaviour: { status: 500, body: MARKUP } });
    [tenantA, tenantB] = [await bed.newTenant(), await bed.newTenant()];
    endpointA = await register(tenantA.key, `${receiver.url}/tenant-a`);
    endpointB = await register(tenantB.key, `${receiver.url}/tenant-b`);

    // An endpoint whose receiver answers 500 with markup: its attempts carry it, and its
    // delivery is abandoned once the stack's short retry schedule is spent.
    const tenant = await bed.newTenant();
    const url = `${failingReceiver.url}/hooks`;
    const { id } = await register(tenant.key, url);
    const event = await bed.stack.publish(tenant.tenantId);
    await waitFor(
      async () => {
        const page = await http(bed.stack.api.baseUrl, 'GET', '/v1/deliveries?status=abandoned', {
          key: tenant.key,
        });
        return page.body?.data?.length > 0;
      },
      { what: 'the failing delivery to be abandoned', timeoutMs: 20_000 },
    );
    failing = { tenant, endpointId: id, url, eventId: event.id };
  }, 90_000);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  afterAll(async () => {
    await bed?.close();
    await receiver?.close();
    await failingReceiver?.close();
    await new Promise((resolve) => platform?.close(resolve));
  });

  /** A fresh browser context (no cookies, no storage), watched for CSP reports. */
  async function watchedPage(): Promise<WatchedPage> {
    const context = await bed.browser.newContext();
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    // Injected through the devtools protocol into every frame: not subject to the page's CSP.
    await context.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (event) => {
        (window.__cspReports = window.__cspReports || []).push(event.violatedDirective + ' ' + event.blockedURI);
      });`,
    });
    const page = await context.newPage();
    const messages: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) {
        messages.push(message.text());
      }
    });
    const cspReports = async () => {
      const reported: string[] = [];
      for (const frame of page.frames()) {
        reported.push(...(await frame.evaluate<string[]>('window.__cspReports || []')));
      }
      return [...messages, ...reported];
    };
    return { page, context, cspReports };
  }

  /** The link opened at one of the console's paths (kept by the console after the exchange). */
  const atPath = (link: string, path: string) => link.replace('/console/#', `/console/${path}#`);

  async function openPortal(link: string): Promise<WatchedPage> {
    const watched = await watchedPage();
    await watched.page.goto(link);
    return watched;
  }

  const consoleFrame = async (page: Page): Promise<Frame | null | undefined> =>
    (await page.locator('iframe').elementHandle())?.contentFrame();

  /** What web storage holds, per kind, or 'denied' when the frame may not use it at all. */
  const webStorage = (target: Page | Frame) =>
    target.evaluate<{ local: unknown; session: unknown }>(`(() => {
      const read = (name) => {
        try { return Object.entries(window[name]); } catch { return 'denied'; }
      };
      return { local: read('localStorage'), session: read('sessionStorage') };
    })()`);

  const heading = (page: Page | Frame, name: string) =>
    page.getByRole('heading', { level: 1, name }).waitFor();

  it('opens in an iframe of an allowed origin, and keeps its token nowhere', async () => {
    const link = await bed.portalLink(tenantA.key);
    const linkToken = link.split('#portal=')[1];
    const { page, context, cspReports } = await watchedPage();
    await page.goto(`${platformOrigin}/embed?src=${encodeURIComponent(link)}`);
    const frame = (await consoleFrame(page)) as Frame;

    await heading(frame, 'Endpoints');
    await frame.getByRole('link', { name: endpointA.url }).waitFor();
    expect(await frame.evaluate('location.hash')).toBe('');
    expect(await frame.evaluate('location.href')).toBe(bed.consoleUrl);
    expect(await frame.evaluate('document.documentElement.outerHTML')).not.toContain(linkToken);
    // A third-party frame: Chromium may deny it web storage altogether; either way, nothing.
    const storage = await webStorage(frame);
    expect([[], 'denied']).toContainEqual(storage.local);
    expect([[], 'denied']).toContainEqual(storage.session);
    expect(await frame.evaluate('document.cookie')).toBe('');
    expect(await context.cookies(bed.stack.api.baseUrl)).toEqual([]);

    // Still working inside the frame: another page, other calls, the same in-memory session.
    await frame.getByRole('link', { name: 'Event types' }).click();
    await heading(frame, 'Event types');
    expect(await frame.evaluate('location.href')).toBe(`${bed.consoleUrl}event-types`);
    expect(await cspReports()).toEqual([]);
  }, 60_000);

  it('is refused in a frame of an origin not listed, and in any frame by default', async () => {
    // The same platform page, reached as 127.0.0.1: another origin, not in frame-ancestors.
    const unlisted = `http://127.0.0.1:${new URL(platformOrigin).port}`;
    const { page } = await watchedPage();
    const refusal = page.waitForEvent('console', (message) =>
      message.text().includes(`frame-ancestors ${platformOrigin}`),
    );
    const link = await bed.portalLink(tenantA.key);
    await page.goto(`${unlisted}/embed?src=${encodeURIComponent(link)}`);
    expect((await refusal).text()).toMatch(/^Framing '.*' violates .* "frame-ancestors/);
    // Chromium shows its error page in the frame instead: the console never loads there.
    expect((await consoleFrame(page))?.url()).toBe(REFUSED_FRAME);

    // An API without CONSOLE_FRAME_ANCESTORS: frame-ancestors 'none', and X-Frame-Options.
    let plainApi: RunningApi | undefined;
    try {
      plainApi = await startApi(
        { AUTH_ISSUER: bed.issuer },
        { databaseUrl: bed.stack.databaseUrl },
      );
      const plainConsole = `${plainApi.baseUrl}/console/`;
      const served = await http(plainApi.baseUrl, 'GET', '/console/');
      expect(served.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(served.headers.get('x-frame-options')).toBe('DENY');
      const refusedByDefault = page.waitForEvent('console', (message) =>
        message.text().includes("frame-ancestors 'none'"),
      );
      await page.goto(`${platformOrigin}/embed?src=${encodeURIComponent(plainConsole)}`);
      expect((await refusedByDefault).text()).toMatch(
        /^Framing '.*' violates .* "frame-ancestors 'none'"/,
      );
      expect((await consoleFrame(page))?.url()).toBe(REFUSED_FRAME);
    } finally {
      await page.context().close();
      await plainApi?.close();
    }
  }, 60_000);

  it('works once: opened again, the link says it cannot be opened and offers the way back; the first session goes on', async () => {
    const link = await bed.portalLink(tenantA.key, { return_url: `${platformOrigin}/back` });
    const first = await openPortal(link);
    await heading(first.page, 'Endpoints');

    const second = await first.context.newPage();
    const exchanges: number[] = [];
    second.on('response', (response) => {
      if (response.url().endsWith('/v1/portal-sessions/exchange')) {
        exchanges.push(response.status());
      }
    });
    await second.goto(link);
    await heading(second, 'This console link cannot be opened');
    expect(await second.getByRole('alert').textContent()).toContain(
      'Console links work once and for a few minutes only.',
    );
    expect(exchanges).toEqual([401]);
    // The refused link still knows where the platform wants its users back.
    expect(
      await second
        .getByRole('link', { name: 'Return to where you came from' })
        .getAttribute('href'),
    ).toBe(`${platformOrigin}/back`);
    // Opened as a page of its own, web storage is usable, and the console kept nothing there.
    expect(await webStorage(first.page)).toEqual({ local: [], session: [] });
    expect(await first.context.cookies()).toEqual([]);
    expect(second.url()).toBe(bed.consoleUrl);
    // The first page's session is untouched by the refused second use.
    await first.page.getByRole('link', { name: 'Undelivered' }).click();
    await heading(first.page, 'Undelivered');
  }, 60_000);

  /** The controls of the page's main content whose names are those of actions. */
  const actionsShown = async (page: Page) =>
    (
      await page.evaluate<string[]>(`Array.from(document.querySelectorAll('main button, main a'),
        (element) => element.getAttribute('aria-label') || element.textContent.trim())`)
    ).filter((name) => ACTION_NAMES.test(name));

  it('read only: every page shows the data and no action', async () => {
    const { tenant, url, eventId } = failing;
    const { page, cspReports } = await openPortal(
      await bed.portalLink(tenant.key, { read_only: true }),
    );
    await heading(page, 'Endpoints');
    await page.locator('header').getByText('Read only', { exact: true }).waitFor();
    await page.getByRole('link', { name: url }).click();

    await heading(page, `Endpoint ${url}`);
    await page.getByRole('table', { name: 'Attempts to this endpoint, newest first' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Actions' }).count()).toBe(0);
    expect(await actionsShown(page)).toEqual([]);

    await page.getByRole('link', { name: 'Undelivered' }).click();
    await heading(page, 'Undelivered');
    await page.getByRole('link', { name: eventId }).waitFor();
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
    expect(await actionsShown(page)).toEqual([]);

    await page.getByRole('link', { name: eventId }).click();
    await heading(page, `Deliveries of event ${eventId}`);
    await page.getByRole('link', { name: failing.endpointId }).waitFor();
    expect(await actionsShown(page)).toEqual([]);
    expect(await cspReports()).toEqual([]);

    // The registration page, opened directly: it says why there is no form.
    const direct = await openPortal(
      atPath(await bed.portalLink(tenant.key, { read_only: true }), 'endpoints/new'),
    );
    await heading(direct.page, 'Register an endpoint');
    await direct.page
      .getByText('This session is read only: it cannot register endpoints.')
      .waitFor();
    expect(await direct.page.locator('main form').count()).toBe(0);
  }, 60_000);

  it('expired: the next page says so and offers the way back, without looping', async () => {
    const tenant = await bed.newTenant();
    const returnUrl = `${platformOrigin}/back`;
    const { page } = await openPortal(await bed.portalLink(tenant.key, { return_url: returnUrl }));
    // Loaded: no request of this page may reach the API after the session's end below.
    await page.getByText('No endpoints yet.').waitFor();
    const [loads, apiCalls]: string[][] = [[], []];
    page.on('request', (request) => {
      if (request.isNavigationRequest()) {
        loads.push(request.url());
      } else if (request.url().includes('/v1/')) {
        apiCalls.push(new URL(request.url()).pathname);
      }
    });

    await bed.stack.api.dataSource.query(
      `UPDATE portal_sessions SET expires_at = now() - interval '1 second' WHERE tenant_id = $1`,
      [tenant.tenantId],
    );
    await page.getByRole('link', { name: 'Undelivered' }).click();
    await heading(page, 'Your session has expired');
    const back = page.getByRole('link', { name: 'Return to where you came from' });
    expect(await back.getAttribute('href')).toBe(returnUrl);
    expect(await back.getAttribute('target')).toBe('_top');
    // Nothing was loaded again and nobody was sent anywhere: the user chooses.
    expect(loads).toEqual([]);
    expect(page.url()).toBe(`${bed.consoleUrl}undelivered`);
    expect(apiCalls.filter((path) => path === '/v1/deliveries')).toHaveLength(1);
    expect(apiCalls).not.toContain('/v1/portal-sessions/exchange');

    await back.click();
    await heading(page, 'Back on the platform');
    expect(page.url()).toBe(returnUrl);
  }, 60_000);

  it('isolates tenants: each session sees its own endpoint, and not the other one by id', async () => {
    for (const [own, other, tenant] of [
      [endpointA, endpointB, tenantA],
      [endpointB, endpointA, tenantB],
    ] as const) {
      const { page } = await openPortal(await bed.portalLink(tenant.key));
      await heading(page, 'Endpoints');
      await page.getByRole('link', { name: own.url }).waitFor();
      expect(await page.getByRole('row').count()).toBe(2);
      expect(await page.locator('main').textContent()).not.toContain(other.url);

      const probe = await openPortal(
        atPath(await bed.portalLink(tenant.key), `endpoints/${other.id}`),
      );
      await probe.page.getByRole('alert').waitFor();
      expect(await probe.page.getByRole('alert').textContent()).toContain('Not found.');
      expect(await probe.page.locator('main').textContent()).not.toContain(other.url);
    }
  }, 60_000);

  it('keeps sandbox and live apart: a test key session sees test endpoints only, and says so', async () => {
    const sandbox = await bed.newTenant('test');
    const liveKey = await new ApiKeysService(bed.stack.api.dataSource).create({
      tenantId: sandbox.tenantId,
      scopes: ['webhooks:manage'],
      environment: 'live',
    });
    const testEndpoint = await register(sandbox.key, `${receiver.url}/sandbox`);
    const liveEndpoint = await register(liveKey.key, `${receiver.url}/live`);

    const { page } = await openPortal(await bed.portalLink(sandbox.key));
    await heading(page, 'Endpoints');
    await page.getByRole('link', { name: testEndpoint.url }).waitFor();
    expect(await page.getByRole('row').count()).toBe(2);
    expect(await page.locator('main').textContent()).not.toContain(liveEndpoint.url);
    await page.locator('header').getByText('Sandbox', { exact: true }).waitFor();
    expect(await page.locator('header').getByText('Live', { exact: true }).count()).toBe(0);

    const live = await openPortal(await bed.portalLink(liveKey.key));
    await live.page.getByRole('link', { name: liveEndpoint.url }).waitFor();
    expect(await live.page.locator('main').textContent()).not.toContain(testEndpoint.url);
    await live.page.locator('header').getByText('Live', { exact: true }).waitFor();
  }, 60_000);

  it('shows what a receiver answered as text: no element injected, no CSP violation', async () => {
    const { tenant, endpointId } = failing;
    const { page, cspReports } = await openPortal(
      atPath(await bed.portalLink(tenant.key), `endpoints/${endpointId}`),
    );
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('table', { name: 'Attempts to this endpoint, newest first' }).waitFor();
    const excerpts = page.locator('main code.excerpt');
    await excerpts.first().waitFor();
    const shown = await excerpts.allTextContents();
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown)).toEqual(new Set([MARKUP]));
    expect(await excerpts.first().getAttribute('title')).toBe(MARKUP);

    // The test event's result shows the receiver's answer too, through another component.
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('button', { name: 'Send the test event' }).click();
    await page.getByText('The test event was not delivered.').waitFor();
    expect(await page.locator('#action-panel code.excerpt').textContent()).toBe(MARKUP);

    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('script').getAttribute('src')).toMatch(/^\/console\/assets\//);
    expect(dialogs).toEqual([]);
    expect(await cspReports()).toEqual([]);
  }, 60_000);
});
