import { Logger } from '@nestjs/common';
import { AttemptResult } from '@svc/deliveries';
import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import { AttemptExchange, findBlockedAddress } from './attempt-exchange';
import { egressProxyConnector } from './egress-proxy-connector';
import {
  type ClientCertificate,
  ClientCertificatePools,
  DEFAULT_MAX_CLIENT_CERTIFICATE_POOLS,
} from './receiver-auth/client-certificate-pools';
import { safeConnector } from './safe-connector';

export interface HttpSenderOptions {
  timeoutMs: number;
  allowList: PrivateNetworkAllowList;
  extraCaFile?: string;
  connectionsPerOrigin: number;
  /**
   * Where a refused address is reported for operators (warn level: the host and the addresses it
   * resolved to, never the URL's path or query); the engine's log by default.
   */
  onBlockedAddress?: (blocked: { host: string; addresses: string[]; detail: string }) => void;
  /**
   * `http://[user:pass@]host:port` (DELIVERY_PROXY_URL): every connection goes through this
   * proxy's CONNECT tunnels, to the address the SSRF rules checked (ADR 0048).
   */
  proxyUrl?: string;
  /** mTLS endpoint versions with a pool of their own at once (least recently used out). */
  maxClientCertificatePools?: number;
}

/** What an attempt may ask beyond the sender's defaults (ADR 0048). */
export interface AttemptOptions {
  /**
   * The endpoint's own budget instead of the sender's `timeoutMs`, which stays the ceiling: the
   * retry scheduler's claims last the deployment's timeout and a margin, and an attempt that
   * outlived its claim could be made twice (ADR 0048).
   */
  timeoutMs?: number;
  /** Connect with this client certificate, through the endpoint version's own pool. */
  clientCertificate?: ClientCertificate;
}

const logger = new Logger('HttpSender');

/**
 * POSTs deliveries over pooled keep-alive HTTPS connections. An attempt succeeds only on a
 * 2xx whose whole answer arrived within the timeout, from connecting to the last byte.
 * Redirects are not followed.
 */
export class HttpSender {
  private readonly agent: Agent;
  /** The extra CA's PEM, for the contexts of client certificates too. */
  private readonly extraCa: string | undefined;
  private readonly clientCertificatePools: ClientCertificatePools;

  constructor(private readonly options: HttpSenderOptions) {
    this.extraCa = options.extraCaFile ? readFileSync(options.extraCaFile, 'utf8') : undefined;
    // One TLS context for every connection: handed `ca` instead, Node would build a context per
    // connection, parsing the whole trust store each time (about 20 ms of CPU and 1 MiB each).
    const secureContext = this.extraCa
      ? createSecureContext({ ca: [...rootCertificates, this.extraCa] })
      : undefined;
    this.agent = this.agentWith(secureContext);
    this.clientCertificatePools = new ClientCertificatePools(
      // One context per pool, made once: the trust store and the endpoint's certificate.
      ({ certificate, privateKey }) =>
        this.agentWith(
          createSecureContext({
            ...(this.extraCa ? { ca: [...rootCertificates, this.extraCa] } : {}),
            cert: certificate,
            key: privateKey,
          }),
        ),
      options.maxClientCertificatePools ?? DEFAULT_MAX_CLIENT_CERTIFICATE_POOLS,
    );
  }

  /**
   * The pool of every endpoint without a client certificate, for other requests that must pass
   * the same checks and proxy (the receivers' OAuth token endpoints). Closed with the sender.
   */
  get sharedDispatcher(): Dispatcher {
    return this.agent;
  }

  /** Connection pools of mTLS endpoint versions held now. */
  get clientCertificatePoolCount(): number {
    return this.clientCertificatePools.size;
  }

  private agentWith(secureContext: SecureContext | undefined): Agent {
    const { allowList, proxyUrl, timeoutMs } = this.options;
    return new Agent({
      connect: proxyUrl
        ? egressProxyConnector(proxyUrl, allowList, { secureContext, timeoutMs })
        : safeConnector(allowList, { secureContext }),
      connections: this.options.connectionsPerOrigin,
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  /**
   * Through undici's dispatch API, not `request()`: the answer is read by an AttemptExchange as it
   * arrives, without a body stream, an AbortSignal and their promises per attempt (issue 18).
   */
  post(
    url: string,
    body: Buffer | string,
    headers: Record<string, string>,
    options?: AttemptOptions,
  ): Promise<AttemptResult> {
    const timeoutMs = Math.min(options?.timeoutMs ?? Infinity, this.options.timeoutMs);
    return new Promise((resolve) => {
      const exchange = new AttemptExchange(timeoutMs, (result, error) => {
        if (error) {
          this.reportBlocked(error);
        }
        resolve(result);
      });
      try {
        if (!url.startsWith('https://')) {
          throw Object.assign(new Error('deliveries go over https only'), {
            code: 'ERR_NOT_HTTPS',
          });
        }
        const target = new URL(url);
        const request: Dispatcher.DispatchOptions = {
          origin: target.origin,
          path: target.pathname + target.search,
          method: 'POST',
          body,
          headers,
        };
        if (timeoutMs !== this.options.timeoutMs) {
          request.headersTimeout = timeoutMs;
          request.bodyTimeout = timeoutMs;
        }
        const dispatcher = options?.clientCertificate
          ? this.clientCertificatePools.agentFor(options.clientCertificate)
          : this.agent;
        dispatcher.dispatch(request, exchange);
      } catch (error) {
        exchange.fail(error);
      }
    });
  }

  /** Closes the shared pool and every client-certificate pool, letting requests finish. */
  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.clientCertificatePools.close()]);
  }

  private reportBlocked(error: unknown): void {
    const blocked = findBlockedAddress(error);
    if (!blocked) {
      return;
    }
    const report = { host: blocked.host, addresses: blocked.addresses, detail: blocked.detail };
    if (this.options.onBlockedAddress) {
      this.options.onBlockedAddress(report);
    } else {
      logger.warn(`delivery refused: ${report.detail}`);
    }
  }
}
