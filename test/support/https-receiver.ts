import { readFileSync } from 'node:fs';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { resolve } from 'node:path';
import type { TLSSocket } from 'node:tls';

/**
 * A real HTTPS webhook receiver for the end-to-end suites, with a certificate from the test CA
 * in test/fixtures/tls (trust TEST_CA_FILE; never switch certificate verification off), whose
 * answers each suite programs: status, delay, redirect, a dropped connection, or any function of
 * the request.
 */

const TLS_FIXTURES = resolve(__dirname, '../fixtures/tls');
/** The test CA that signed the receiver's certificate (for localhost, 127.0.0.1 and ::1). */
export const TEST_CA_FILE = resolve(TLS_FIXTURES, 'ca.pem');
export const TEST_SERVER_CERT_FILE = resolve(TLS_FIXTURES, 'server.pem');
export const TEST_SERVER_KEY_FILE = resolve(TLS_FIXTURES, 'server-key.pem');
/** Mutual TLS (ADR 0048): the CA of client certificates, and a client certificate from it. */
export const TEST_CLIENT_CA_FILE = resolve(TLS_FIXTURES, 'client-ca.pem');
export const TEST_CLIENT_CERT_FILE = resolve(TLS_FIXTURES, 'client.pem');
export const TEST_CLIENT_KEY_FILE = resolve(TLS_FIXTURES, 'client-key.pem');

export interface ReceivedRequest {
  method: string;
  /** Path and query string, as sent. */
  path: string;
  /** Lowercased names, as Node gives them. */
  headers: IncomingHttpHeaders;
  /** Exactly the bytes received, for signature checks. */
  rawBody: Buffer;
  /** Date.now() when the whole request (headers and body) had arrived. */
  receivedAt: number;
  /** The host name the client sent in SNI; undefined when it sent none (an IP literal). */
  servername?: string;
  /** With `requireClientCertificate`: the subject of the certificate the client presented. */
  clientCertificateSubject?: Record<string, string | string[] | undefined>;
}

/** An answer; `delayMs` waits before it (a delay beyond the sender's timeout is a timeout). */
export type AnswerBehaviour =
  | { status?: number; delayMs?: number; headers?: Record<string, string>; body?: string }
  | { redirectTo: string; status?: 301 | 302 | 303 | 307 | 308; delayMs?: number }
  | { destroySocket: true; delayMs?: number };

/** `index` is the request's position in `requests` (0 for the first). */
export type BehaviourFunction = (
  request: ReceivedRequest,
  index: number,
) => AnswerBehaviour | Promise<AnswerBehaviour>;

export type ReceiverBehaviour = AnswerBehaviour | BehaviourFunction;

export interface HttpsReceiverOptions {
  /** Default: 200 at once. */
  behaviour?: ReceiverBehaviour;
  /** Default 127.0.0.1; '::1' works too (the certificate covers both). */
  host?: string;
  /**
   * Mutual TLS (ADR 0048): the handshake fails unless the client presents a certificate signed by
   * the test client CA (client-ca.pem). Default false.
   */
  requireClientCertificate?: boolean;
}

export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  port: number;
  /** Every complete request, in arrival order. */
  requests: ReceivedRequest[];
  /** Applies to the requests that arrive from now on. */
  respondWith(behaviour: ReceiverBehaviour): void;
  /** Resolves with the first `count` requests once they have arrived; rejects after the timeout. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

const sleep = (ms: number, timers: Set<NodeJS.Timeout>): Promise<void> =>
  new Promise((done) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      done();
    }, ms);
    timers.add(timer);
  });

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolveBody(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

export async function startHttpsReceiver(
  options: HttpsReceiverOptions = {},
): Promise<HttpsReceiver> {
  const host = options.host ?? '127.0.0.1';
  let behaviour: ReceiverBehaviour = options.behaviour ?? {};
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  // Delays still running at close() would otherwise keep Jest's worker alive.
  const timers = new Set<NodeJS.Timeout>();

  const answer = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const rawBody = await readBody(request);
    const socket = request.socket as TLSSocket;
    const servername = (socket as TLSSocket & { servername?: string | false }).servername;
    const received: ReceivedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      rawBody,
      receivedAt: Date.now(),
      servername: servername || undefined,
    };
    if (options.requireClientCertificate) {
      received.clientCertificateSubject = { ...socket.getPeerCertificate().subject };
    }
    const index = requests.push(received) - 1;
    waiters.forEach((check) => check());

    const planned = typeof behaviour === 'function' ? await behaviour(received, index) : behaviour;
    if (planned.delayMs) {
      await sleep(planned.delayMs, timers);
    }
    if (response.destroyed) {
      return;
    }
    if ('destroySocket' in planned) {
      request.socket.destroy();
    } else if ('redirectTo' in planned) {
      response.writeHead(planned.status ?? 301, { location: planned.redirectTo }).end();
    } else {
      response.writeHead(planned.status ?? 200, {
        'content-type': 'text/plain; charset=utf-8',
        ...planned.headers,
      });
      response.end(planned.body ?? '');
    }
  };

  const server = createServer(
    {
      cert: readFileSync(TEST_SERVER_CERT_FILE),
      key: readFileSync(TEST_SERVER_KEY_FILE),
      ...(options.requireClientCertificate
        ? { requestCert: true, rejectUnauthorized: true, ca: readFileSync(TEST_CLIENT_CA_FILE) }
        : {}),
    },
    (request, response) => {
      answer(request, response).catch((error: unknown) => {
        // A failing behaviour function is a bug in the test: make it loud, on both sides.
        console.error('https-receiver: answering a request failed', error);
        if (!response.headersSent) {
          response.writeHead(500).end(String(error));
        }
      });
    },
  );
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const { port } = server.address() as { port: number };
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    port,
    requests,
    respondWith(next) {
      behaviour = next;
    },
    waitForRequests(count, timeoutMs = 10_000) {
      return new Promise((resolveWait, reject) => {
        const check = () => {
          if (requests.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolveWait(requests.slice(0, count));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `https-receiver: ${requests.length} of ${count} requests arrived within ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      timers.forEach((timer) => clearTimeout(timer));
      timers.clear();
      return new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
    },
  };
}

/** A loopback port where nothing listens (connections to it are refused), for failure tests. */
export async function refusedPort(host = '127.0.0.1'): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolveListen());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  return port;
}
