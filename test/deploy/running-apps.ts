import { http, RunningApp, startApi, startAuth, startDelivery } from '@svc/testing';

/** The three apps as the deploy tests start and scrape them (in this process, @svc/testing). */

export type ScrapedApp = Pick<RunningApp, 'name' | 'baseUrl' | 'managementUrl' | 'close'>;

/** api, auth and a delivery engine, freshly started: settle them all, then close what started. */
export function startingApps(): Promise<ScrapedApp>[] {
  return [startApi().then((api) => ({ ...api, name: 'api' })), startAuth(), startDelivery()];
}

/** The apps of `startingApps()` that did start. */
export function startedApps(results: PromiseSettledResult<ScrapedApp>[]): ScrapedApp[] {
  return results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
}

/** /readyz once NATS, which the apps connect to in the background, has answered (or 10 s). */
export async function readyStatus(baseUrl: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { status } = await http(baseUrl, 'GET', '/readyz');
    if (status === 200 || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Real traffic first, so the HTTP counter and histogram have series to show; probes and scrapes
 * go to the management port (ADR 0019), which counts them under their own routes. Then the scrape
 * of /metrics, which must be Prometheus text.
 */
export async function scrapeAfterTraffic(app: ScrapedApp): Promise<string> {
  expect((await http(app.managementUrl, 'GET', '/healthz')).status).toBe(200);
  expect(await readyStatus(app.managementUrl)).toBe(200);
  expect((await http(app.baseUrl, 'GET', '/no-such-route')).status).toBe(404);
  const scrape = await http(app.managementUrl, 'GET', '/metrics');
  expect(scrape.status).toBe(200);
  expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
  return scrape.text;
}
