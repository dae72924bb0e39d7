import { DELIVERY_HEADERS, DELIVERY_USER_AGENT, newId } from '@svc/contracts';
import { signatureHeaderValue } from '@svc/signing';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { BenchEvents } from './bench-events';
import type { BenchEndpoint } from './bench-stack';
import { percentile } from './stats';

/** What the raw client says its requests carry: it sends bodies, not events it has read. */
const RAW_EVENT = { id: 'evt_raw', type: 'alert.created' };

/**
 * The headers of a signed first attempt, as the engine sends them (the bench receiver counts
 * requests by their attempt header).
 */
export function firstAttemptHeaders(
  body: Buffer | string,
  secret: string,
  event: { id: string; type: string },
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': DELIVERY_USER_AGENT,
    [DELIVERY_HEADERS.signature]: signatureHeaderValue(body, secret),
    [DELIVERY_HEADERS.eventId]: event.id,
    [DELIVERY_HEADERS.eventType]: event.type,
    [DELIVERY_HEADERS.deliveryId]: newId('del'),
    [DELIVERY_HEADERS.attempt]: '1',
  };
}

export interface RawRunResult {
  requests: number;
  failures: number;
  elapsedMs: number;
  /** Request sent to whole answer read, as the client saw it. */
  roundTripMs: { p50: number; p99: number };
}

/**
 * The ceiling the engine is compared with: what plain HTTPS POSTs of the same signed bodies to
 * the same receiver reach at the same concurrency, with the connection pooling the engine uses
 * (an undici Agent, one pool per endpoint origin, as many connections per origin as the engine
 * allows per endpoint), and nothing else: no JetStream, no PostgreSQL.
 */
export class RawClient {
  private readonly agent: Agent;

  constructor(
    private readonly endpoints: BenchEndpoint[],
    private readonly events: BenchEvents,
    options: { caFile: string; connectionsPerOrigin: number },
  ) {
    this.agent = new Agent({
      // One TLS context for all connections, as the engine's HttpSender does.
      connect: {
        secureContext: createSecureContext({
          ca: [...rootCertificates, readFileSync(options.caFile, 'utf8')],
        }),
      },
      connections: options.connectionsPerOrigin,
      keepAliveTimeout: 30_000,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
  }

  /** `deliveries` POSTs (one event to every endpoint in turn) with `concurrency` in flight. */
  async run(deliveries: number, concurrency: number): Promise<RawRunResult> {
    const perEvent = this.endpoints.length;
    const bodies = Array.from({ length: Math.ceil(deliveries / perEvent) }, () =>
      JSON.stringify(this.events.next()),
    );
    const roundTrips = new Float64Array(deliveries);
    let next = 0;
    let failures = 0;
    const worker = async () => {
      while (next < deliveries) {
        const index = next++;
        const endpoint = this.endpoints[index % perEvent];
        const body = bodies[Math.floor(index / perEvent)];
        const started = performance.now();
        try {
          const response = await request(endpoint.url, {
            method: 'POST',
            body,
            headers: firstAttemptHeaders(body, endpoint.secret, RAW_EVENT),
            dispatcher: this.agent,
          });
          await response.body.text();
          if (response.statusCode !== 200) {
            failures += 1;
          }
        } catch {
          failures += 1;
        }
        roundTrips[index] = performance.now() - started;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsedMs = performance.now() - started;
    roundTrips.sort();
    return {
      requests: deliveries,
      failures,
      elapsedMs,
      roundTripMs: { p50: percentile(roundTrips, 0.5), p99: percentile(roundTrips, 0.99) },
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
