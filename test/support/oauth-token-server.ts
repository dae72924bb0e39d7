import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { TEST_SERVER_CERT_FILE, TEST_SERVER_KEY_FILE } from './https-receiver';

/**
 * A real OAuth 2.0 token endpoint (RFC 6749 4.4, client credentials) over HTTPS on loopback, with
 * the test server certificate (trust TEST_CA_FILE), for the engine's receiver-auth suites (ADR
 * 0048). It checks the client's credentials the way it is told to take them (RFC 6749 2.3.1),
 * issues random tokens with the lifetime it is given, and can be made to fail.
 */

export type ClientAuthMethod = 'basic' | 'form';

export interface TokenRequestSeen {
  /** How the client presented its credentials: Basic, the form, or not at all. */
  clientAuth: ClientAuthMethod | 'none';
  /** The form's fields, the client secret included (for assertions). */
  form: Record<string, string>;
  contentType: string | undefined;
  /** Null when refused. */
  issued: string | null;
}

export type TokenServerFailure =
  { status: number; body?: string; contentType?: string } | { destroySocket: true };

export interface OAuthTokenServerOptions {
  clientId: string;
  clientSecret: string;
  /** How the client must authenticate; the other way answers 401 `invalid_client`. Default basic. */
  accepts?: ClientAuthMethod;
  /** `expires_in` of the tokens issued; undefined: none given. Default 3600. */
  expiresInSeconds?: number | undefined;
  /** Answer delay, for concurrency tests. */
  delayMs?: number;
}

export interface OAuthTokenServer {
  /** `https://127.0.0.1:<port>/oauth/token`. */
  tokenUrl: string;
  port: number;
  requests: TokenRequestSeen[];
  /** Every token issued, in order. */
  issued: string[];
  /** Whether `authorization: Bearer <token>` carries a token this server issued. */
  isIssued(authorization: string | undefined): boolean;
  /** The latest token issued, or undefined. */
  latest(): string | undefined;
  setExpiresIn(seconds: number | undefined): void;
  /** From now on, every request fails so; null: back to issuing. */
  failWith(failure: TokenServerFailure | null): void;
  close(): Promise<void>;
}

function formDecoded(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

export async function startOAuthTokenServer(
  options: OAuthTokenServerOptions,
): Promise<OAuthTokenServer> {
  const accepts = options.accepts ?? 'basic';
  let expiresIn: number | undefined =
    'expiresInSeconds' in options ? options.expiresInSeconds : 3600;
  let failure: TokenServerFailure | null = null;
  const requests: TokenRequestSeen[] = [];
  const issued: string[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const json = (response: ServerResponse, status: number, body: unknown) =>
    response
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const text = await readBody(request);
    const form = Object.fromEntries(new URLSearchParams(text));
    const seen: TokenRequestSeen = {
      clientAuth: 'none',
      form,
      contentType: request.headers['content-type'],
      issued: null,
    };
    requests.push(seen);
    if (options.delayMs) {
      await new Promise<void>((done) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          done();
        }, options.delayMs);
        timers.add(timer);
      });
    }
    if (failure) {
      if ('destroySocket' in failure) {
        request.socket.destroy();
      } else {
        response
          .writeHead(failure.status, { 'content-type': failure.contentType ?? 'application/json' })
          .end(failure.body ?? '');
      }
      return;
    }
    const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '');
    let presented: { id: string; secret: string } | null = null;
    if (basic) {
      seen.clientAuth = 'basic';
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      presented = {
        id: formDecoded(decoded.slice(0, colon)),
        secret: formDecoded(decoded.slice(colon + 1)),
      };
    } else if (form.client_id !== undefined) {
      seen.clientAuth = 'form';
      presented = { id: form.client_id, secret: form.client_secret ?? '' };
    }
    if (
      seen.clientAuth !== accepts ||
      presented?.id !== options.clientId ||
      presented.secret !== options.clientSecret
    ) {
      json(response, 401, { error: 'invalid_client' });
      return;
    }
    if (form.grant_type !== 'client_credentials') {
      json(response, 400, { error: 'unsupported_grant_type' });
      return;
    }
    const token = randomBytes(16).toString('hex');
    issued.push(token);
    seen.issued = token;
    json(response, 200, {
      access_token: token,
      token_type: 'Bearer',
      ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
    });
  };

  const server = createServer(
    { cert: readFileSync(TEST_SERVER_CERT_FILE), key: readFileSync(TEST_SERVER_KEY_FILE) },
    (request, response) => {
      if (request.method !== 'POST' || request.url !== '/oauth/token') {
        response.writeHead(404).end();
        return;
      }
      answer(request, response).catch((error: unknown) => {
        console.error('oauth-token-server: answering failed', error);
        if (!response.headersSent) {
          response.writeHead(500).end();
        }
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as { port: number };

  return {
    tokenUrl: `https://127.0.0.1:${port}/oauth/token`,
    port,
    requests,
    issued,
    isIssued: (authorization) => {
      const bearer = /^Bearer (.+)$/.exec(authorization ?? '');
      return bearer !== null && issued.includes(bearer[1]);
    },
    latest: () => issued.at(-1),
    setExpiresIn(seconds) {
      expiresIn = seconds;
    },
    failWith(next) {
      failure = next;
    },
    close() {
      timers.forEach((timer) => clearTimeout(timer));
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
