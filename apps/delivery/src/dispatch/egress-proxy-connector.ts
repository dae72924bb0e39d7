import type { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContext, type TLSSocket } from 'node:tls';
import type { buildConnector } from 'undici';
import { bareHost, type CheckedAddress, resolveChecked } from './safe-connector';

/** The most of a proxy's answer to CONNECT (status line and headers) read before giving up. */
export const CONNECT_ANSWER_LIMIT_BYTES = 8 * 1024;

/** Where the proxy is and how to authenticate to it: from DELIVERY_PROXY_URL. */
export interface EgressProxy {
  host: string;
  port: number;
  /** `Basic ...` when the URL has credentials; never in a message or a log. */
  authorization: string | null;
}

/** `http://[user:pass@]host:port` (validated by the configuration) as an EgressProxy. */
export function egressProxyOf(proxyUrl: string): EgressProxy {
  const url = new URL(proxyUrl);
  if (url.protocol !== 'http:') {
    throw new Error('the egress proxy URL must be http://[user:pass@]host:port');
  }
  const credentials =
    url.username || url.password
      ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
      : null;
  return {
    host: bareHost(url.hostname),
    port: Number(url.port) || 80,
    authorization: credentials ? `Basic ${Buffer.from(credentials).toString('base64')}` : null,
  };
}

/** `127.0.0.1:443`, `[2001:db8::1]:443`: the authority a CONNECT names. */
export function authorityOf(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/** The CONNECT request for a checked address (RFC 9110 9.3.6), Host the same authority. */
export function connectRequest(authority: string, authorization: string | null): string {
  const credentials = authorization ? `Proxy-Authorization: ${authorization}\r\n` : '';
  return `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${credentials}\r\n`;
}

/** The proxy's answer to CONNECT, once its head is complete. */
export interface ConnectAnswer {
  statusCode: number;
  /** The reason phrase, printable and bounded (it is the proxy's text, shown to tenants). */
  reason: string;
  /** Bytes after the head: none from a proxy that waits for the client to speak first. */
  rest: Buffer;
}

/**
 * Reads the head of the proxy's answer from what has arrived so far: null while incomplete; an
 * error when it is past the limit or not HTTP/1.x.
 */
export function readConnectAnswer(received: Buffer): ConnectAnswer | null {
  const end = received.indexOf('\r\n\r\n');
  if (end === -1) {
    if (received.length >= CONNECT_ANSWER_LIMIT_BYTES) {
      throw new Error(
        `the egress proxy's answer to CONNECT has no end within ${CONNECT_ANSWER_LIMIT_BYTES} bytes`,
      );
    }
    return null;
  }
  if (end + 4 > CONNECT_ANSWER_LIMIT_BYTES) {
    throw new Error(
      `the egress proxy's answer to CONNECT is longer than ${CONNECT_ANSWER_LIMIT_BYTES} bytes`,
    );
  }
  const statusLine = received.subarray(0, received.indexOf('\r\n')).toString('latin1');
  const match = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
  if (!match) {
    throw new Error('the egress proxy answered CONNECT with something other than HTTP/1.x');
  }
  return {
    statusCode: Number(match[1]),
    reason: (match[2] ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, 80),
    rest: received.subarray(end + 4),
  };
}

/** The proxy would not open the tunnel. The message names its status, never its credentials. */
export class ProxyTunnelError extends Error {
  override readonly name = 'ProxyTunnelError';
  readonly code = 'ERR_PROXY_TUNNEL';
  constructor(
    message: string,
    readonly statusCode: number | null,
  ) {
    super(message);
  }
}

export interface EgressProxyTls {
  /** The trust store (and, for an mTLS pool, the client certificate): one context, reused. */
  secureContext?: SecureContext;
  /** From asking the proxy to a TLS session with the receiver; default 10 s. */
  timeoutMs?: number;
}

/**
 * undici's connector through an HTTP CONNECT proxy (ADR 0048). The target is resolved and checked
 * against the SSRF rules here, as the direct connector checks it, and the proxy is asked for that
 * very address, so DNS cannot steer it elsewhere; TLS with the receiver then runs inside the
 * tunnel, named by the endpoint's host (SNI and the certificate check). The proxy's own address
 * is configuration and is never checked against the rules. Every failure and the deadline destroy
 * the sockets made so far.
 */
export function egressProxyConnector(
  proxyUrl: string,
  allowList: PrivateNetworkAllowList,
  tls: EgressProxyTls = {},
): buildConnector.connector {
  const proxy = egressProxyOf(proxyUrl);
  const timeoutMs = tls.timeoutMs ?? 10_000;
  return (options, callback) => {
    const host = bareHost(options.hostname);
    const https = options.protocol !== 'http:';
    const port = Number(options.port) || (https ? 443 : 80);
    const attempt = new TunnelAttempt(callback, timeoutMs);
    resolveChecked(host, allowList, (error, checked) => {
      if (error || !checked) {
        attempt.fail(error ?? new Error('no address to connect to'));
        return;
      }
      attempt.open(proxy, checked, port, (tunnel) =>
        https ? attempt.startTls(tunnel, host, tls.secureContext) : attempt.succeed(tunnel),
      );
    });
  };
}

/** One connection through the proxy: settles its callback once, owns its sockets until then. */
class TunnelAttempt {
  private settled = false;
  /** What to destroy on failure: the TCP connection to the proxy, then TLS over it. */
  private readonly sockets: Array<Socket | TLSSocket> = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly callback: buildConnector.Callback,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(
      () =>
        this.fail(
          Object.assign(new Error(`no tunnel through the egress proxy within ${timeoutMs} ms`), {
            code: 'UND_ERR_CONNECT_TIMEOUT',
          }),
        ),
      timeoutMs,
    );
  }

  open(
    proxy: EgressProxy,
    target: CheckedAddress,
    port: number,
    onTunnel: (tunnel: Socket) => void,
  ): void {
    if (this.settled) {
      return;
    }
    const socket = netConnect({ host: proxy.host, port: proxy.port });
    this.sockets.push(socket);
    let received = Buffer.alloc(0);
    const onError = (error: Error) =>
      this.fail(new Error(`egress proxy unreachable: ${error.message}`, { cause: error }));
    const onClose = () =>
      this.fail(new ProxyTunnelError('the egress proxy closed the connection', null));
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      let answer: ConnectAnswer | null;
      try {
        answer = readConnectAnswer(received);
      } catch (error) {
        this.fail(error);
        return;
      }
      if (!answer) {
        return;
      }
      socket.off('data', onData).off('error', onError).off('close', onClose);
      if (answer.statusCode < 200 || answer.statusCode > 299) {
        const reason = answer.reason ? ` ${answer.reason}` : '';
        this.fail(
          new ProxyTunnelError(
            `the egress proxy refused the tunnel: answered ${answer.statusCode}${reason}`,
            answer.statusCode,
          ),
        );
        return;
      }
      if (answer.rest.length > 0) {
        this.fail(new ProxyTunnelError('the egress proxy sent data before the tunnel began', null));
        return;
      }
      onTunnel(socket);
    };
    socket.once('connect', () =>
      socket.write(connectRequest(authorityOf(target.address, port), proxy.authorization)),
    );
    socket.on('data', onData).on('error', onError).on('close', onClose);
  }

  startTls(tunnel: Socket, host: string, secureContext: SecureContext | undefined): void {
    if (this.settled) {
      return;
    }
    const secured = tlsConnect({
      socket: tunnel,
      // The certificate is checked against `host`; SNI names a host name only (RFC 6066 3).
      host,
      servername: isIP(host) ? undefined : host,
      secureContext,
      ALPNProtocols: ['http/1.1'],
    });
    this.sockets.push(secured);
    const onError = (error: Error) => this.fail(error);
    secured.once('secureConnect', () => {
      secured.off('error', onError);
      this.succeed(secured);
    });
    secured.on('error', onError);
  }

  succeed(socket: Socket | TLSSocket): void {
    if (this.settle()) {
      this.callback(null, socket);
    } else {
      socket.destroy();
    }
  }

  fail(error: unknown): void {
    if (this.settle()) {
      this.sockets.forEach((socket) => socket.destroy());
      // Not `instanceof Error`: errors from another realm (a VM context, Jest) are errors too.
      this.callback(
        typeof error === 'object' && error !== null ? (error as Error) : new Error(String(error)),
        null,
      );
    }
  }

  private settle(): boolean {
    if (this.settled) {
      return false;
    }
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }
}
