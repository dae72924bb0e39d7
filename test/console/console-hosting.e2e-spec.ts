import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createApiApplication } from '../../apps/api/src/api-application';
import { http, RunningApp, startApp } from '../support';
import { sampleValue } from '../support/metric-value';

const INDEX_HTML =
  '<!doctype html><title>console fixture</title><script type="module" src="/console/assets/app-abc123.js"></script>';
const APP_JS = 'console.log("fixture");';
const ISSUER = 'https://auth.example.com';
const SECRET = 'outside the console folder';

/** The API serving a console folder of the test's own (an internal option of the app). */
function startApiWithConsole(directory: string, env: NodeJS.ProcessEnv = {}): Promise<RunningApp> {
  return startApp(
    'api',
    (config, logger) => createApiApplication(config, logger, { console: { directory } }),
    { AUTH_ISSUER: ISSUER, ...env },
  );
}

/**
 * A request sent as written: fetch resolves `..` segments before sending, and adds
 * `Cache-Control: no-cache` to a conditional request (which then always gets the whole file).
 */
function rawRequest(
  baseUrl: string,
  path: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, path, method, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the console served by the API at /console/', () => {
  let base: string;
  let api: RunningApp;

  beforeAll(async () => {
    // base/console is served; base/secret.txt is what a path traversal would be after.
    base = await mkdtemp(join(tmpdir(), 'console-fixture-'));
    const folder = join(base, 'console');
    await mkdir(join(folder, 'assets'), { recursive: true });
    await writeFile(join(base, 'secret.txt'), SECRET);
    await writeFile(join(folder, 'index.html'), INDEX_HTML);
    await writeFile(join(folder, 'assets', 'app-abc123.js'), APP_JS);
    // As the build writes them (apps/console/vite.config.mts): a compressed copy beside the file.
    await writeFile(join(folder, 'assets', 'app-abc123.js.gz'), gzipSync(APP_JS));
    await writeFile(join(folder, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    api = await startApiWithConsole(folder);
  });
  afterAll(async () => {
    await api?.close();
    await rm(base, { recursive: true, force: true });
  });

  it('serves index.html at /console/, never cached, with the strict policy and no credential', async () => {
    const response = await http(api.baseUrl, 'GET', '/console/');
    expect(response.status).toBe(200);
    expect(response.text).toBe(INDEX_HTML);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        "connect-src 'self' https://auth.example.com; font-src 'self'; base-uri 'none'; " +
        "form-action 'self' https://auth.example.com; frame-ancestors 'none'",
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('caches hashed assets for good and revalidates unhashed files', async () => {
    const asset = await http(api.baseUrl, 'GET', '/console/assets/app-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.text).toBe(APP_JS);
    expect(asset.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toContain("script-src 'self'");

    const icon = await http(api.baseUrl, 'GET', '/console/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('cache-control')).toBe('no-cache');
    const revalidated = await rawRequest(api.baseUrl, '/console/favicon.svg', 'GET', {
      'if-none-match': icon.headers.get('etag')!,
    });
    expect(revalidated.status).toBe(304);
  });

  it('sends the compressed copy the build wrote to a browser that accepts it, the file to one that does not', async () => {
    const { hostname, port } = new URL(api.baseUrl);
    const fetchRaw = (headers: Record<string, string>) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const outgoing = httpRequest(
          { hostname, port, path: '/console/assets/app-abc123.js', headers },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({ headers: response.headers, body: Buffer.concat(chunks) }),
            );
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      });
    const compressed = await fetchRaw({ 'accept-encoding': 'gzip, deflate' });
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.headers.vary).toMatch(/accept-encoding/i);
    expect(compressed.headers['content-type']).toMatch(/javascript/);
    expect(compressed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gunzipSync(compressed.body).toString()).toBe(APP_JS);

    const plain = await fetchRaw({});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(APP_JS);
  });

  it.each(['/console/callback', '/console/endpoints/wh_123', '/console/event-types/alert.created'])(
    'answers index.html for the single-page app path %s',
    async (path) => {
      const response = await http(api.baseUrl, 'GET', `${path}?code=abc&state=xyz`);
      expect(response.status).toBe(200);
      expect(response.text).toBe(INDEX_HTML);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    },
  );

  it('answers a missing hashed asset with a 404 problem, not index.html', async () => {
    const response = await http(api.baseUrl, 'GET', '/console/assets/app-gone99.js');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type: 'urn:svc:problem:not-found', status: 404 });
  });

  it('redirects /console to /console/, keeping the query', async () => {
    const response = await fetch(`${api.baseUrl}/console?x=1`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/console/?x=1');
  });

  it('gives the console its sign-in settings at /console/config.json', async () => {
    const response = await http(api.baseUrl, 'GET', '/console/config.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      issuer: ISSUER,
      client_id: 'svc-console',
      redirect_uri: 'http://localhost:8080/console/callback',
      scope: 'webhooks:manage',
    });
  });

  it('answers HEAD like GET, without a body', async () => {
    const index = await rawRequest(api.baseUrl, '/console/endpoints', 'HEAD');
    expect(index).toEqual({ status: 200, body: '' });
    const asset = await fetch(`${api.baseUrl}/console/assets/app-abc123.js`, {
      method: 'HEAD',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Number(asset.headers.get('content-length'))).toBe(APP_JS.length);
  });

  it.each([
    '/console/../secret.txt',
    '/console/assets/../../secret.txt',
    '/console/%2e%2e/secret.txt',
    '/console/%2E%2E%2Fsecret.txt',
    '/console/..%2fsecret.txt',
    '/console/assets/..%5c..%5csecret.txt',
    '/console/./index.html',
    '/console//etc/passwd',
    '/console/.env',
    '/console/assets/%00.js',
  ])('refuses %s', async (path) => {
    const response = await rawRequest(api.baseUrl, path);
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({ detail: 'The console has no such file.' });
    expect(response.body).not.toContain(SECRET);
  });

  it('is not in the OpenAPI document', async () => {
    const document = (await http(api.baseUrl, 'GET', '/v1/openapi.json')).body as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/console'))).toEqual([]);
  });

  it('counts requests under bounded route templates and still refuses other methods', async () => {
    await http(api.baseUrl, 'GET', '/console/endpoints/wh_456');
    const metrics = (await http(api.managementUrl, 'GET', '/metrics')).text;
    expect(
      sampleValue(metrics, 'http_requests_total', 'route="/console/*",status_code="200"'),
    ).toBeGreaterThan(0);
    expect(metrics).not.toContain('wh_456');
    const post = await http(api.baseUrl, 'POST', '/console/callback', { json: {} });
    expect(post.status).toBe(405);
  });
});

describe('the console served by the API, before it is built or when it may be framed', () => {
  let empty: string;
  beforeAll(async () => {
    empty = await mkdtemp(join(tmpdir(), 'console-absent-'));
  });
  afterAll(() => rm(empty, { recursive: true, force: true }));

  it('starts without the built console and says so with a 503 problem', async () => {
    const api = await startApiWithConsole(join(empty, 'dist', 'console'));
    try {
      for (const path of ['/console/', '/console/callback', '/console/assets/app-abc123.js']) {
        const response = await http(api.baseUrl, 'GET', path);
        expect(response.status).toBe(503);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(response.body).toMatchObject({
          type: 'urn:svc:problem:service-unavailable',
          title: 'The console is not built',
          status: 503,
        });
      }
      expect((await http(api.baseUrl, 'GET', '/console/config.json')).status).toBe(200);
      expect((await http(api.baseUrl, 'GET', '/v1/openapi.json')).status).toBe(200);
    } finally {
      await api.close();
    }
  });

  it('lets the configured origins frame it, without X-Frame-Options', async () => {
    const api = await startApiWithConsole(empty, {
      CONSOLE_FRAME_ANCESTORS: 'https://app.example.com, https://admin.example.com',
      CONSOLE_URL: 'https://console.example.com/',
    });
    try {
      const response = await http(api.baseUrl, 'GET', '/console/config.json');
      expect(response.headers.get('content-security-policy')).toContain(
        'frame-ancestors https://app.example.com https://admin.example.com',
      );
      expect(response.headers.get('x-frame-options')).toBeNull();
      expect(response.body).toMatchObject({
        redirect_uri: 'https://console.example.com/callback',
      });
    } finally {
      await api.close();
    }
  });
});
