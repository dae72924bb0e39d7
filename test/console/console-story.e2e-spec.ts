import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import {
  ConsoleTenant,
  ConsoleTestBed,
  signInThroughConsole,
  startConsoleTestBed,
} from '../support/console-harness';
import { http } from '../support/http-client';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

/**
 * Issue 31's whole story in Debian's Chromium, against the real apps: a developer signs in to the
 * console, registers an endpoint on a local HTTPS receiver and sends it a test event, sees an
 * event's attempt, watches a delivery abandoned while the receiver fails (the harness shortens
 * the retry schedule to one retry), finds it in the undelivered view, fixes the receiver,
 * replays it from there and sees it succeed. With CONSOLE_SCREENSHOTS=<folder> it also takes the
 * screenshots of the main pages that docs/console.md shows (`npm run console:screenshots`).
 */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;

describe('the console, the whole story of a developer in a browser', () => {
  let bed: ConsoleTestBed;
  let receiver: HttpsReceiver;
  let tenant: ConsoleTenant;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    bed = await startConsoleTestBed();
    receiver = await startHttpsReceiver();
    tenant = await bed.newTenant();
    context = await bed.browser.newContext({ viewport: { width: 1280, height: 760 } });
    page = await context.newPage();
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await receiver?.close();
    await bed?.close();
  });

  async function screenshot(name: string): Promise<void> {
    if (SCREENSHOTS) {
      await page.screenshot({ path: join(resolve(SCREENSHOTS), `console-${name}.png`) });
    }
  }

  /** Opens a page of the console through its navigation, so that the page loads afresh. */
  async function openFromNavigation(name: 'Endpoints' | 'Undelivered'): Promise<void> {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
  }

  async function openEndpoint(url: string): Promise<void> {
    await openFromNavigation('Endpoints');
    await page.getByRole('link', { name: url }).click();
    await page.getByRole('heading', { level: 1, name: `Endpoint ${url}` }).waitFor();
  }

  /** Reopens the endpoint's page until its attempts show the text (the page does not poll). */
  async function waitForAttemptShowing(url: string, text: string): Promise<void> {
    await waitFor(
      async () => {
        await openEndpoint(url);
        const rows = page.getByRole('row').filter({ hasText: text });
        return (await rows.count()) > 0;
      },
      { timeoutMs: 20_000, intervalMs: 300, what: `an attempt showing ${text}` },
    );
  }

  /**
   * What the row showing `rowText` holds in the column named `column` of the named table, once
   * that row is shown (a page's heading comes before its table has loaded).
   */
  async function cellOf(table: string, rowText: string, column: string): Promise<string | null> {
    const scope = page.getByRole('table', { name: table });
    const row = scope.getByRole('row').filter({ hasText: rowText }).first();
    await row.waitFor({ timeout: 10_000 });
    const columns = await scope.getByRole('columnheader').allTextContents();
    expect(columns).toContain(column);
    return row.locator('th, td').nth(columns.indexOf(column)).textContent();
  }

  const ATTEMPTS_TABLE = 'Attempts to this endpoint, newest first';

  it('signs in, registers an endpoint with a test event, and sees an event delivered', async () => {
    await signInThroughConsole(page, bed, tenant.user, () => screenshot('sign-in'));
    await page.getByRole('heading', { level: 1, name: 'Endpoints' }).waitFor();
    expect(new URL(page.url()).hash).toBe('');

    await page.getByRole('link', { name: 'Register an endpoint' }).click();
    await page.getByRole('heading', { name: 'Step 1 of 2: register an endpoint' }).waitFor();
    const endpointUrl = `${receiver.url}/hooks/story`;
    await page.getByLabel('URL', { exact: true }).fill(endpointUrl);
    await page.getByLabel('Every alert event (alert.*), including future ones').check();
    // HMAC is ticked by default; Ed25519 beside it, as a receiver migrating would choose.
    const schemes = page.getByRole('group', { name: 'Signature schemes' });
    expect(await schemes.getByLabel(/^HMAC-SHA256/).isChecked()).toBe(true);
    await schemes.getByLabel(/^Ed25519/).check();
    await screenshot('register');
    await page.getByRole('button', { name: 'Register the endpoint' }).click();
    await page.getByRole('heading', { name: 'Step 2 of 2: send a test event' }).waitFor();
    await page.getByRole('button', { name: 'Send the test event' }).click();
    const [testDelivery] = await receiver.waitForRequests(1);
    expect(JSON.parse(testDelivery.rawBody.toString()).type).toBe('webhook.test');

    const event = await bed.stack.publish(tenant.tenantId, 'alert.created');
    await receiver.waitForRequests(2);
    await waitForAttemptShowing(endpointUrl, event.id);
    expect(await page.getByText('HMAC-SHA256, Ed25519', { exact: true }).count()).toBe(1);
    // The endpoint's first event is its delivery number 1; the test event took no number.
    expect(await cellOf(ATTEMPTS_TABLE, event.id, 'Sequence')).toBe('1');
    expect(await cellOf(ATTEMPTS_TABLE, 'webhook.test', 'Sequence')).toBe('—');
    await screenshot('endpoint');
  }, 60_000);

  it('finds a delivery abandoned while the receiver failed, replays it once fixed, and sees it succeed', async () => {
    const endpointUrl = `${receiver.url}/hooks/story`;
    receiver.respondWith({ status: 503, body: 'maintenance' });
    const failed = await bed.stack.publish(tenant.tenantId, 'alert.created');
    await waitFor(
      async () => {
        const response = await http(
          bed.stack.api.baseUrl,
          'GET',
          '/v1/deliveries?status=abandoned',
          {
            key: tenant.key,
          },
        );
        const deliveries = response.body.data as Array<{ event_id: string }>;
        return deliveries.some((delivery) => delivery.event_id === failed.id);
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the delivery abandoned' },
    );

    // The endpoint's failed attempts of alert.created: the abandoned delivery's, nothing else.
    await openEndpoint(endpointUrl);
    await page.getByLabel('Outcome', { exact: true }).selectOption('failed');
    await page.getByLabel('Event type', { exact: true }).selectOption('alert.created');
    const failedRows = page.getByRole('row').filter({ hasText: failed.id });
    await failedRows.first().waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'webhook.test' }).count()).toBe(0);
    expect(await page.getByRole('row').filter({ hasText: 'succeeded' }).count()).toBe(0);

    await openFromNavigation('Undelivered');
    const row = page.getByRole('row').filter({ hasText: failed.id });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain('503');
    expect(await cellOf('Abandoned deliveries', failed.id, 'Sequence')).toBe('2');
    await screenshot('undelivered');

    receiver.respondWith({ status: 204 });
    const before = receiver.requests.length;
    await page.getByRole('button', { name: `Replay the delivery of event ${failed.id}` }).click();
    await page.getByRole('status').filter({ hasText: 'is being sent again' }).first().waitFor();
    const replayed = await receiver.waitForRequests(before + 1);
    expect(JSON.parse(replayed[before].rawBody.toString()).id).toBe(failed.id);

    await waitFor(
      async () => {
        await openEndpoint(endpointUrl);
        const succeeded = page
          .getByRole('row')
          .filter({ hasText: failed.id })
          .filter({ hasText: '204' });
        return (await succeeded.count()) > 0;
      },
      { timeoutMs: 20_000, intervalMs: 300, what: 'the replayed delivery shown as succeeded' },
    );
    // The event's deliveries: the replay was sent under the number the delivery always had.
    await page.getByRole('link', { name: failed.id }).first().click();
    await page
      .getByRole('heading', { level: 1, name: `Deliveries of event ${failed.id}` })
      .waitFor();
    const deliveriesTable = 'Deliveries of the event, one per endpoint';
    expect(await cellOf(deliveriesTable, 'succeeded', 'Sequence')).toBe('2');
    await openFromNavigation('Endpoints');
    await page.getByRole('row').filter({ hasText: endpointUrl }).filter({ hasText: '%' }).waitFor();
    await screenshot('endpoints');
  }, 90_000);
});
