import { connect } from 'node:net';
import { http, RunningApi, RunningApp, startApi, startAuth } from '../support';

/** Sends `raw` on a fresh connection; resolves with what came back and when the server closed. */
function rawExchange(
  baseUrl: string,
  raw: string,
  waitMs = 10_000,
): Promise<{ text: string; closedAfterMs: number | null }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(raw));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedAfterMs: null });
    }, waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({
        text: Buffer.concat(chunks).toString('latin1'),
        closedAfterMs: Date.now() - started,
      });
    });
  });
}

function problemOf(rawResponse: string): { status: number; contentType?: string; body: any } {
  const [head, body] = rawResponse.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /content-type: *([^\r\n]+)/i.exec(head)?.[1];
  return { status, contentType, body: body ? JSON.parse(body) : undefined };
}

const KEY_IN_PATH = `svc_live_${'Q7w'.repeat(10)}ab`;

describe('the public ports under hostile HTTP (issue 9, items 3, 5, 7, 10, 11; issue 17 item 5)', () => {
  let api: RunningApi;
  let auth: RunningApp;
  let key: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    api = await startApi(
      { LOG_LEVEL: 'info', HTTP_REQUEST_TIMEOUT: '1s', HTTP_HEADERS_TIMEOUT: '500ms' },
      { logLines },
    );
    auth = await startAuth({ HTTP_REQUEST_TIMEOUT: '1s', HTTP_HEADERS_TIMEOUT: '500ms' });
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
  });
  afterAll(async () => {
    await api?.close();
    await auth?.close();
  });

  const expectFixedProblem = (
    response: { status: number; headers: Headers; body: any; text: string },
    status: number,
    type: string,
    mustNotEcho: string,
  ) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type, status, title: expect.any(String) });
    const withoutInstance = { ...(response.body as Record<string, unknown>), instance: undefined };
    expect(JSON.stringify(withoutInstance)).not.toContain(mustNotEcho);
  };

  describe('management port', () => {
    it.each(['/healthz', '/readyz', '/metrics'])(
      'serves %s on the management port only, never on the public ports',
      async (path) => {
        expect((await http(api.managementUrl, 'GET', path)).status).toBe(200);
        expect((await http(auth.managementUrl, 'GET', path)).status).toBe(200);
        const onApi = await http(api.baseUrl, 'GET', path);
        expect(onApi.status).toBe(404);
        expect(onApi.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect((await http(auth.baseUrl, 'GET', path)).status).toBe(404);
      },
    );

    it('answers anything else on the management port with a problem document', async () => {
      const unknown = await http(api.managementUrl, 'GET', '/v1/webhooks');
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const wrongMethod = await http(api.managementUrl, 'POST', '/metrics');
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    });
  });

  describe('framework errors', () => {
    it('answers a badly encoded URL with a 400 problem document that does not echo the path', async () => {
      const response = await http(api.baseUrl, 'GET', '/v1/webhooks/%E0%A4%zzecho-me', { key });
      expectFixedProblem(response, 400, 'urn:svc:problem:malformed-request', 'echo-me');
      expect(response.body.instance).toBeUndefined();
      const onAuth = await http(auth.baseUrl, 'GET', '/oauth/%E0%A4%zzecho-me');
      expect(onAuth.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    it('answers an over-long path segment with a 414 problem document that does not echo it', async () => {
      const segment = `wh_${'x'.repeat(150)}`;
      expectFixedProblem(
        await http(api.baseUrl, 'GET', `/v1/webhooks/${segment}`, { key }),
        414,
        'urn:svc:problem:uri-too-long',
        segment,
      );
    });

    it('answers headers that are too large with a 431 problem document', async () => {
      for (const app of [api, auth]) {
        const { text } = await rawExchange(
          app.baseUrl,
          `GET /v1/webhooks HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
        );
        const answer = problemOf(text);
        expect(answer.status).toBe(431);
        expect(answer.contentType).toMatch(/^application\/problem\+json/);
        expect(answer.body).toMatchObject({
          type: 'urn:svc:problem:headers-too-large',
          status: 431,
        });
      }
    });

    it('answers a request that is not HTTP with a 400 problem document', async () => {
      const { text } = await rawExchange(api.baseUrl, 'HELLO /v1/echo-me\r\n\r\n');
      const answer = problemOf(text);
      expect(answer.status).toBe(400);
      expect(answer.contentType).toMatch(/^application\/problem\+json/);
      expect(answer.body.type).toBe('urn:svc:problem:malformed-request');
      expect(text).not.toContain('echo-me');
    });

    it('answers a known path with an unsupported method with 405 and Allow', async () => {
      const response = await http(api.baseUrl, 'PUT', '/v1/webhooks', { key, json: {} });
      expect(response.status).toBe(405);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ type: 'urn:svc:problem:method-not-allowed' });
      expect(response.headers.get('allow')).toEqual(expect.stringContaining('GET'));
      expect(response.headers.get('allow')).toEqual(expect.stringContaining('POST'));
      const onItem = await http(api.baseUrl, 'POST', '/v1/webhooks/wh_123', { key, json: {} });
      expect(onItem.status).toBe(405);
      expect(onItem.headers.get('allow')).toMatch(/DELETE/);
      expect(onItem.headers.get('allow')).toMatch(/PATCH/);
      expect((await http(api.baseUrl, 'GET', '/v1/nothing-here', { key })).status).toBe(404);
    });

    it('answers JSON nested 3,000 deep with a 400 problem document', async () => {
      const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
      const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
        key,
        body: `{"url":"https://hooks.example.com/","events":${deep},"secret":"${'s'.repeat(20)}"}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ type: 'urn:svc:problem:malformed-json' });
      expect((await http(api.managementUrl, 'GET', '/healthz')).status).toBe(200);
    });
  });

  describe('time and connection limits', () => {
    it('closes a connection whose announced body never comes, within the request timeout', async () => {
      for (const app of [api, auth]) {
        const { text, closedAfterMs } = await rawExchange(
          app.baseUrl,
          'POST /v1/webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            'Content-Length: 60000\r\n\r\n{"url":',
          8_000,
        );
        expect(closedAfterMs).not.toBeNull();
        expect(closedAfterMs!).toBeLessThan(4_000);
        if (text) {
          expect(text).toMatch(/^HTTP\/1\.1 408/);
        }
      }
    });

    it('closes a connection whose headers never end, within the headers timeout', async () => {
      const { closedAfterMs } = await rawExchange(
        api.baseUrl,
        'GET /v1/webhooks HTTP/1.1\r\nHost: x\r\n',
        8_000,
      );
      expect(closedAfterMs).not.toBeNull();
      expect(closedAfterMs!).toBeLessThan(4_000);
    });
  });

  describe('credentials', () => {
    it('refuses two Authorization headers with a 400 problem document', async () => {
      const { text } = await rawExchange(
        api.baseUrl,
        'GET /v1/webhooks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n' +
          `Authorization: Bearer ${key}\r\nAuthorization: Bearer svc_live_other\r\n\r\n`,
      );
      const answer = problemOf(text);
      expect(answer.status).toBe(400);
      expect(answer.contentType).toMatch(/^application\/problem\+json/);
      expect(answer.body.type).toBe('urn:svc:problem:duplicate-header');
    });

    it('never logs a key or token that was put in the URL path', async () => {
      await http(api.baseUrl, 'GET', `/v1/webhooks/${KEY_IN_PATH}`, { key });
      await http(api.baseUrl, 'GET', `/v1/webhooks/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln`, {
        key,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const log = logLines.join('');
      expect(log).toContain('/v1/webhooks/[redacted]');
      expect(log).not.toContain(KEY_IN_PATH);
      expect(log).not.toContain('eyJzdWIiOiIxIn0');
    });
  });
});
