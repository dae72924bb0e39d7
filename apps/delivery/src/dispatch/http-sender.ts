import { Logger } from '@nestjs/common';
import { AttemptResult } from '@svc/deliveries';
import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { AttemptExchange, findBlockedAddress } from './attempt-exchange';
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
}

const logger = new Logger('HttpSender');

/**
 * POSTs deliveries over pooled keep-alive HTTPS connections. An attempt succeeds only on a
 * 2xx whose whole answer arrived within the timeout, from connecting to the last byte.
 * Redirects are not followed.
 */
export class HttpSender {
  private readonly agent: Agent;

  constructor(private readonly options: HttpSenderOptions) {
    // One TLS context for every connection: handed `ca` instead, Node would build a context per
    // connection, parsing the whole trust store each time (about 20 ms of CPU and 1 MiB each).
    const secureContext = options.extraCaFile
      ? createSecureContext({
          ca: [...rootCertificates, readFileSync(options.extraCaFile, 'utf8')],
        })
      : undefined;
    this.agent = new Agent({
      connect: safeConnector(options.allowList, { secureContext }),
      connections: options.connectionsPerOrigin,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
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
  ): Promise<AttemptResult> {
    return new Promise((resolve) => {
      const exchange = new AttemptExchange(this.options.timeoutMs, (result, error) => {
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
        this.agent.dispatch(
          {
            origin: target.origin,
            path: target.pathname + target.search,
            method: 'POST',
            body,
            headers,
          },
          exchange,
        );
      } catch (error) {
        exchange.fail(error);
      }
    });
  }

  close(): Promise<void> {
    return this.agent.close();
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
