import { createServer, IncomingMessage } from 'node:http';
import { connect, Socket } from 'node:net';

/**
 * A real HTTP CONNECT proxy on loopback for the egress-proxy suites (ADR 0048): it opens the
 * tunnels it is asked for (RFC 9110 9.3.6), counts them, records each CONNECT's target and
 * `Proxy-Authorization`, and can demand credentials (407 otherwise) or refuse every tunnel.
 */

export interface ConnectSeen {
  /** The request target, `127.0.0.1:8443` or `[::1]:8443`, as sent. */
  target: string;
  host: string | undefined;
  proxyAuthorization: string | undefined;
  /** What the proxy answered. */
  status: number;
}

export interface ConnectProxyOptions {
  /** `user:pass`: tunnels need `Proxy-Authorization: Basic base64(user:pass)`, 407 without. */
  credentials?: string;
  /** Every CONNECT answered so, no tunnel (403, 502...). */
  refuseWith?: number;
}

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`, with `user:pass@` when credentials are required. */
  url: string;
  port: number;
  connects: ConnectSeen[];
  /** Tunnels opened (CONNECTs answered 200). */
  readonly tunnels: number;
  refuseWith(status: number | null): void;
  close(): Promise<void>;
}

export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const connects: ConnectSeen[] = [];
  const sockets = new Set<Socket>();
  let tunnels = 0;
  let refusal = options.refuseWith ?? null;
  const expected = options.credentials
    ? `Basic ${Buffer.from(options.credentials).toString('base64')}`
    : null;

  const server = createServer((_request, response) => {
    response.writeHead(405).end();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const seen: ConnectSeen = {
      target: request.url ?? '',
      host: request.headers.host,
      proxyAuthorization: request.headers['proxy-authorization'],
      status: 200,
    };
    connects.push(seen);
    client.on('error', () => client.destroy());
    const refuse = (status: number, reason: string, extra = '') => {
      seen.status = status;
      client.end(`HTTP/1.1 ${status} ${reason}\r\n${extra}content-length: 0\r\n\r\n`);
    };
    if (expected && seen.proxyAuthorization !== expected) {
      refuse(407, 'Proxy Authentication Required', 'proxy-authenticate: Basic realm="egress"\r\n');
      return;
    }
    if (refusal !== null) {
      refuse(refusal, refusal === 403 ? 'Forbidden' : 'Refused');
      return;
    }
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(seen.target);
    if (!match) {
      refuse(400, 'Bad Request');
      return;
    }
    const upstream = connect({ host: match[1], port: Number(match[2]) });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      tunnels++;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) {
        upstream.write(head);
      }
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (connected) {
        client.destroy();
      } else {
        refuse(502, 'Bad Gateway');
      }
    });
    client.once('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as { port: number };
  const auth = options.credentials ? `${options.credentials}@` : '';

  return {
    url: `http://${auth}127.0.0.1:${port}`,
    port,
    connects,
    get tunnels() {
      return tunnels;
    },
    refuseWith(status) {
      refusal = status;
    },
    close() {
      sockets.forEach((socket) => socket.destroy());
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
