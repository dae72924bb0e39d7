import type { Browser, Page } from 'playwright-core';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One opening of the console's endpoints page in headless Chromium, timed in the page itself
 * (performance.now(), whose origin is the navigation's start) and counted by the browser's
 * Resource Timing: what `npm run bench:console` does per round.
 *
 * "Usable" means: the endpoints table (role table, its accessible name from the caption
 * "Your endpoints, with their success rate and last attempt over 24 hours") has its first page of
 * rows, and no row has a cell still showing the loading mark "…" (every row's success rate and
 * last attempt are filled in), and the browser has since run one animation frame (the one that
 * paints it). A cell that failed to load ("Not available") fails the round.
 */
export const TABLE_NAME = 'Your endpoints, with their success rate and last attempt over 24 hours';

const OBSERVER_SCRIPT = `(() => {
  const NAME = ${JSON.stringify(TABLE_NAME)};
  const marks = {};
  const check = () => {
    const table = [...document.querySelectorAll('table')]
      .find((t) => t.caption && t.caption.textContent.trim() === NAME);
    const rows = table && table.tBodies[0] ? [...table.tBodies[0].rows] : [];
    if (rows.length === 0) return;
    if (marks.tableMs === undefined) marks.tableMs = performance.now();
    if (rows.some((row) => [...row.cells].some((cell) => cell.textContent.trim() === '…'))) return;
    observer.disconnect();
    marks.filledMs = performance.now();
    marks.rows = rows.length;
    marks.unavailableRows = rows.filter((row) => row.textContent.includes('Not available')).length;
    requestAnimationFrame(() => {
      marks.usableMs = performance.now();
      window.__consoleBenchUsable(marks);
    });
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})();`;

/** A request as Resource Timing saw it, in ms from the navigation's start. */
export interface TimedRequest {
  kind: string;
  /** The path, without the query. */
  path: string;
  startMs: number;
  /** When the request was sent: after any wait for a connection (6 per origin in HTTP/1.1). */
  sentMs: number;
  firstByteMs: number;
  endMs: number;
  bodyBytes: number;
  transferBytes: number;
}

export interface PageMarks {
  tableMs: number;
  filledMs: number;
  usableMs: number;
  rows: number;
  unavailableRows: number;
}

export interface RoundResult {
  marks: PageMarks;
  /** Requests to /v1 the page made, counted by the browser as it sent them. */
  apiRequestsSent: number;
  /** Every request the page made (document, scripts, styles, API). */
  requestsSent: number;
  /** Requests to /v1 that got no answer, or an error status. */
  apiFailures: string[];
  documentEndMs: number;
  requests: TimedRequest[];
  /** CPU the API process used meanwhile (set by the bench; 10 ms ticks). */
  apiCpuMs?: number;
}

/** The kind of a request, by its path: an id becomes {id}. */
export function requestKind(url: string): string {
  const { pathname } = new URL(url);
  if (pathname === '/v1/portal-sessions/exchange') return 'POST /v1/portal-sessions/exchange';
  if (pathname === '/v1/webhooks') return 'GET /v1/webhooks';
  const webhook = /^\/v1\/webhooks\/[^/]+\/(stats|attempts)$/.exec(pathname);
  if (webhook) return `GET /v1/webhooks/{id}/${webhook[1]}`;
  if (pathname.startsWith('/console/assets/')) {
    return pathname.endsWith('.js') ? 'script' : 'asset';
  }
  return pathname.startsWith('/v1/')
    ? pathname.replace(/\/[a-z]+_[0-9a-z]{26}/g, '/{id}')
    : pathname;
}

const isApi = (url: string) => new URL(url).pathname.startsWith('/v1/');

/** Counts requests as the browser sends them; resolves once /v1 has been quiet for `quietMs`. */
function watchNetwork(page: Page) {
  const state = { api: 0, all: 0, inFlight: 0, lastChange: Date.now(), failures: [] as string[] };
  page.on('request', (request) => {
    state.all += 1;
    if (isApi(request.url())) {
      state.api += 1;
      state.inFlight += 1;
      state.lastChange = Date.now();
    }
  });
  const settle = (url: string, failure: string | null) => {
    if (isApi(url)) {
      state.inFlight -= 1;
      state.lastChange = Date.now();
      if (failure) state.failures.push(`${requestKind(url)}: ${failure}`);
    }
  };
  page.on('requestfinished', (request) => {
    void request.response().then((response) => {
      const status = response?.status() ?? 0;
      settle(request.url(), status >= 400 ? `status ${status}` : null);
    });
  });
  page.on('requestfailed', (request) =>
    settle(request.url(), request.failure()?.errorText ?? 'failed'),
  );
  const quiet = async (quietMs: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (state.inFlight > 0 || Date.now() - state.lastChange < quietMs) {
      if (Date.now() > deadline) {
        throw new Error(`API requests still in flight after ${timeoutMs} ms: ${state.inFlight}`);
      }
      await sleep(20);
    }
  };
  return { state, quiet };
}

/** Navigation and resource entries of the page, in ms from the navigation's start. */
async function timings(page: Page): Promise<{ documentEndMs: number; requests: TimedRequest[] }> {
  // A string: the bench is compiled without the DOM's types.
  const raw = await page.evaluate<{
    documentEndMs: number;
    entries: (Omit<TimedRequest, 'kind' | 'path'> & { url: string })[];
  }>(`({
    documentEndMs: performance.getEntriesByType('navigation')[0].responseEnd,
    entries: performance.getEntriesByType('resource').map((entry) => ({
      url: entry.name,
      startMs: entry.startTime,
      sentMs: entry.requestStart,
      firstByteMs: entry.responseStart,
      endMs: entry.responseEnd,
      bodyBytes: entry.decodedBodySize,
      transferBytes: entry.transferSize,
    })),
  })`);
  return {
    documentEndMs: raw.documentEndMs,
    requests: raw.entries.map(({ url, ...entry }) => ({
      kind: requestKind(url),
      path: new URL(url).pathname,
      ...entry,
    })),
  };
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Opens `link` (a portal link: the console at /console/#portal=<token>) in a new browser context,
 * so nothing is cached from an earlier round, and measures until the endpoints page is usable
 * and the page's API requests have been quiet for half a second.
 */
export async function openEndpointsPage(
  browser: Browser,
  link: string,
  options: { timeoutMs?: number; screenshot?: string } = {},
): Promise<RoundResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    let reported: (marks: PageMarks) => void = () => undefined;
    const usable = new Promise<PageMarks>((resolve) => (reported = resolve));
    await page.exposeFunction('__consoleBenchUsable', (marks: PageMarks) => reported(marks));
    await page.addInitScript(OBSERVER_SCRIPT);
    const network = watchNetwork(page);
    await page.goto(link, { waitUntil: 'commit', timeout: timeoutMs });
    const marks = await withTimeout(
      usable,
      timeoutMs,
      `the endpoints page was not usable within ${timeoutMs} ms`,
    );
    await network.quiet(500, timeoutMs);
    // The accessible name the page is recognised by, checked as assistive technology sees it.
    const named = await page.getByRole('table', { name: TABLE_NAME, exact: true }).count();
    if (named !== 1) {
      throw new Error(`expected one table named "${TABLE_NAME}", found ${named}`);
    }
    if (marks.unavailableRows > 0) {
      throw new Error(`${marks.unavailableRows} row(s) showed "Not available"`);
    }
    const { documentEndMs, requests } = await timings(page);
    if (options.screenshot) {
      await page.screenshot({ path: options.screenshot, fullPage: true });
    }
    return {
      marks,
      apiRequestsSent: network.state.api,
      requestsSent: network.state.all,
      apiFailures: network.state.failures,
      documentEndMs,
      requests,
    };
  } finally {
    await context.close();
  }
}
