import { Logger } from '@nestjs/common';
import {
  AttemptResult,
  errorKindOf,
  parseRetryAfter,
  resultOfStatus,
  RETRY_AFTER_STATUSES,
} from '@svc/deliveries';
import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { BlockedAddressError, safeConnector } from './safe-connector';

/** How much of a response body the delivery log keeps. */
export const RESPONSE_EXCERPT_BYTES = 512;
/** Past this a response body is not read further: the receiver is misbehaving. */
const RESPONSE_READ_LIMIT_BYTES = 1024 * 1024;

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

  async post(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // The whole budget, connecting to last byte. Not AbortSignal.timeout(): its timer and signal
    // live on for the full timeout after the answer came (tens of thousands of them at a few
    // thousand attempts per second, all surviving into the old generation); this one is cleared.
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
        ),
      this.options.timeoutMs,
    );
    try {
      if (!url.startsWith('https://')) {
        throw Object.assign(new Error('deliveries go over https only'), { code: 'ERR_NOT_HTTPS' });
      }
      const response = await request(url, {
        method: 'POST',
        body,
        headers,
        dispatcher: this.agent,
        signal: deadline.signal,
      });
      const excerpt = await readExcerpt(response.body);
      const result = resultOfStatus(response.statusCode, elapsed(), excerpt);
      if (RETRY_AFTER_STATUSES.includes(response.statusCode)) {
        result.retryAfterMs = parseRetryAfter(response.headers['retry-after'], new Date());
      }
      return result;
    } catch (error) {
      const blocked = findBlockedAddress(error);
      if (blocked) {
        const report = { host: blocked.host, addresses: blocked.addresses, detail: blocked.detail };
        if (this.options.onBlockedAddress) {
          this.options.onBlockedAddress(report);
        } else {
          logger.warn(`delivery refused: ${report.detail}`);
        }
      }
      return {
        succeeded: false,
        statusCode: null,
        errorKind: errorKindOf(error),
        // The tenant sees only "blocked address" (the detail above is for operators).
        errorMessage: blocked ? blocked.message : describe(error),
        latencyMs: elapsed(),
        responseExcerpt: null,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** Reads the answer to its end (it must be complete to count) and keeps its first bytes. */
async function readExcerpt(body: AsyncIterable<Buffer>): Promise<string | null> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (keptBytes < RESPONSE_EXCERPT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    if (total > RESPONSE_READ_LIMIT_BYTES) {
      break;
    }
  }
  return keptBytes > 0 ? Buffer.concat(kept).toString('utf8') : null;
}

function findBlockedAddress(error: unknown): BlockedAddressError | undefined {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof BlockedAddressError) {
      return current;
    }
    current = current.cause;
  }
  return undefined;
}

function describe(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error && parts.length < 3) {
    parts.push(current.message);
    current = current.cause;
  }
  return (parts.join(': ') || String(error)).slice(0, 300);
}
