import { LINGERING_CLOSE } from '@svc/http';
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { RunningApi, RunningApp, startApi, startAuth } from '../support';

const execFileAsync = promisify(execFile);

/** Sends `raw` on a fresh connection; resolves with all that came back once the server closed. */
function rawExchange(baseUrl: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(raw));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server did not close the connection within 10 s'));
    }, 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}

function parseResponse(raw: string): { status: number; headers: string; body: any } {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const body = rest.join('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]),
    headers: head.toLowerCase(),
    body: body ? JSON.parse(body) : undefined,
  };
}

const FIVE_MB = 5 * 1024 * 1024;

/**
 * Node's fetch in a process of its own, as a client is: in the server's own event loop, the
 * client's writes and the server's close take turns, and the reset that a separate client meets
 * (EPIPE while it still writes its body) is never seen. Each outcome is `<status> <media type>
 * <problem type>`, or `failed: <code>`.
 */
async function fetchFromAnotherProcess(request: {
  url: string;
  headers: Record<string, string>;
  bytes: number;
  times: number;
  chunked?: boolean;
}): Promise<string[]> {
  const client = `
    const { url, headers, bytes, times, chunked } = JSON.parse(process.argv[1]);
    const whole = Buffer.alloc(bytes, 0x20);
    const bodyOf = () => {
      if (!chunked) return whole;
      let sent = 0;
      return new ReadableStream({
        pull(controller) {
          if (sent >= bytes) return controller.close();
          controller.enqueue(whole.subarray(sent, sent + 65536));
          sent += 65536;
        },
      });
    };
    const outcomes = [];
    for (let i = 0; i < times; i++) {
      try {
        const response = await fetch(url, { method: 'POST', headers, body: bodyOf(), duplex: 'half' });
        const type = (response.headers.get('content-type') ?? '').split(';')[0];
        outcomes.push(response.status + ' ' + type + ' ' + (await response.json()).type);
      } catch (error) {
        outcomes.push('failed: ' + (error.cause?.code ?? error.message));
      }
    }
    process.stdout.write(JSON.stringify(outcomes));
  `;
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--input-type=module', '-e', client, JSON.stringify(request)],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout) as string[];
}

describe('connection manners on every port (issue 29, part 8, items 1 and 2)', () => {
  let api: RunningApi;
  let auth: RunningApp;
  let key: string;

  beforeAll(async () => {
    // the default body limit (API_BODY_LIMIT_BYTES, 64 KiB)
    api = await startApi();
    auth = await startAuth();
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
  });
  afterAll(async () => {
    await api?.close();
    await auth?.close();
  });

  describe('an HTTP/1.1 request without Host', () => {
    // by the port's name: the apps listen only once beforeAll has run
    const requests: Record<string, () => [url: string, requestLine: string]> = {
      'the API': () => [api.baseUrl, 'GET /v1/webhooks'],
      'the API, with a body': () => [api.baseUrl, 'POST /v1/webhooks'],
      "the API's management port": () => [api.managementUrl, 'GET /healthz'],
      'the authorization server': () => [
        auth.baseUrl,
        'GET /.well-known/oauth-authorization-server',
      ],
      "the authorization server's management port": () => [auth.managementUrl, 'GET /readyz'],
    };

    it.each(Object.keys(requests))('is a 400 problem document on %s', async (port) => {
      const [url, requestLine] = requests[port]();
      const body = requestLine.startsWith('POST') ? '{"url":"https://x.example.com"}' : '';
      const raw = await rawExchange(
        url,
        `${requestLine} HTTP/1.1\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\n\r\n${body}`,
      );
      const response = parseResponse(raw);
      expect(response.status).toBe(400);
      expect(response.headers).toMatch(/\r\ncontent-type: application\/problem\+json/);
      expect(response.headers).toMatch(/\r\nconnection: close/);
      expect(response.body).toEqual({
        type: 'urn:svc:problem:malformed-request',
        title: 'Malformed request',
        status: 400,
        detail: 'An HTTP/1.1 request must carry a Host header.',
      });
    });

    it('is still served over HTTP/1.0, where Host is optional, and with Host over HTTP/1.1', async () => {
      const old = parseResponse(
        await rawExchange(api.managementUrl, 'GET /healthz HTTP/1.0\r\n\r\n'),
      );
      expect(old.status).toBe(200);
      const withHost = parseResponse(
        await rawExchange(
          api.managementUrl,
          'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
        ),
      );
      expect(withHost.status).toBe(200);
    });
  });

  describe('a body over the limit, sent whole without Expect: 100-continue', () => {
    it('gets the 413 problem document through Node’s fetch, every time (ten 5 MB bodies)', async () => {
      const outcomes = await fetchFromAnotherProcess({
        url: `${api.baseUrl}/v1/webhooks`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        bytes: FIVE_MB,
        times: 10,
      });
      expect(outcomes).toEqual(
        Array(10).fill('413 application/problem+json urn:svc:problem:payload-too-large'),
      );
    });

    it('gets it for a body of unannounced length (chunked) too', async () => {
      const outcomes = await fetchFromAnotherProcess({
        url: `${api.baseUrl}/v1/webhooks`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        bytes: FIVE_MB,
        times: 3,
        chunked: true,
      });
      expect(outcomes).toEqual(
        Array(3).fill('413 application/problem+json urn:svc:problem:payload-too-large'),
      );
    });

    it('gets it on the authorization server too', async () => {
      const outcomes = await fetchFromAnotherProcess({
        url: `${auth.baseUrl}/oauth/token`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        bytes: FIVE_MB,
        times: 3,
      });
      expect(outcomes).toEqual(
        Array(3).fill('413 application/problem+json urn:svc:problem:payload-too-large'),
      );
    });

    it('is not read for ever: a client that keeps sending is cut off within the lingering bounds', async () => {
      const { hostname, port } = new URL(api.baseUrl);
      const started = Date.now();
      const result = await new Promise<{
        response: string;
        sentBytes: number;
        closedAfterMs: number;
      }>((resolve) => {
        const chunks: Buffer[] = [];
        let sentBytes = 0;
        const block = Buffer.alloc(256 * 1024, 0x20);
        // allowHalfOpen: it goes on sending after the answer and the end of the server's writing
        const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true }, () => {
          socket.write(
            'POST /v1/webhooks HTTP/1.1\r\nHost: localhost\r\n' +
              `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
              'Content-Length: 1073741824\r\n\r\n',
          );
          const pump = () => {
            while (!socket.destroyed && sentBytes < 1024 * 1024 * 1024) {
              sentBytes += block.length;
              if (!socket.write(block)) {
                socket.once('drain', pump);
                return;
              }
            }
          };
          pump();
        });
        socket.on('data', (chunk) => chunks.push(chunk));
        socket.on('error', () => undefined);
        socket.on('close', () =>
          resolve({
            response: Buffer.concat(chunks).toString('latin1'),
            sentBytes,
            closedAfterMs: Date.now() - started,
          }),
        );
      });
      expect(parseResponse(result.response).status).toBe(413);
      expect(result.closedAfterMs).toBeLessThan(LINGERING_CLOSE.maxMs + 2_000);
      // what was read and dropped, plus what the sockets' buffers held
      expect(result.sentBytes).toBeLessThan(LINGERING_CLOSE.maxBytes + 64 * 1024 * 1024);
    });

    it('is not waited for for ever: a client that sends slowly is cut off after the lingering time', async () => {
      const { hostname, port } = new URL(api.baseUrl);
      const started = Date.now();
      const result = await new Promise<{ response: string; closedAfterMs: number }>((resolve) => {
        const chunks: Buffer[] = [];
        const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true }, () => {
          socket.write(
            'POST /v1/webhooks HTTP/1.1\r\nHost: localhost\r\n' +
              `Authorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
              'Content-Length: 104857600\r\n\r\n',
          );
          const drip = setInterval(() => {
            if (socket.destroyed) {
              clearInterval(drip);
            } else {
              socket.write(Buffer.alloc(1024, 0x20));
            }
          }, 50);
          socket.on('close', () => clearInterval(drip));
        });
        socket.on('data', (chunk) => chunks.push(chunk));
        socket.on('error', () => undefined);
        socket.on('close', () =>
          resolve({
            response: Buffer.concat(chunks).toString('latin1'),
            closedAfterMs: Date.now() - started,
          }),
        );
      });
      expect(parseResponse(result.response).status).toBe(413);
      expect(result.closedAfterMs).toBeGreaterThanOrEqual(LINGERING_CLOSE.maxMs - 200);
      expect(result.closedAfterMs).toBeLessThan(LINGERING_CLOSE.maxMs + 2_000);
    });
  });
});
