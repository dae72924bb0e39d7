/**
 * A reference webhook receiver: verify the signature over the raw bytes, answer at once, process
 * later. It uses only node:http / node:https on purpose, so that it can be copied into any
 * codebase and adapted to any framework; the one thing every framework must allow is access to
 * the raw request body before JSON parsing (spec 6.3 signs bytes, not JSON values).
 */
import {
  createServer as createHttpServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server as HttpServer,
  ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { JwksKeySource } from './jwks-key-source';
import { RecentIds } from './recent-ids';
import { sequenceOf } from './sequence-header';
import { Verification, verifyDelivery } from './verify-delivery';

/** Node lowercases incoming header names (these are DELIVERY_HEADERS of @svc/contracts). */
export const DELIVERY_ID_HEADER = 'x-svc-delivery-id';
export const ATTEMPT_HEADER = 'x-svc-delivery-attempt';

/** The event envelope of every delivery (spec 2.2). */
export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  tenant_id: string;
  data: Record<string, unknown>;
}

export interface DeliveryInfo {
  /** Exactly the bytes that were signed. */
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  receivedAt: Date;
  /** Which signatures verified (none, for a delivery answered 401). */
  verification: Verification;
  /**
   * `X-SVC-Sequence`: the delivery's number among its endpoint's, for gap checks (ADR 0045);
   * absent on test events. Not covered by the signature: count it only for verified deliveries.
   */
  sequence?: number;
}

export interface ReceiverOptions {
  /**
   * The secret given when the endpoint was registered, or several: during a rotation (ADR 0026)
   * give the new one and the old one, and a delivery signed with either verifies. Needed for an
   * endpoint whose `signature_schemes` include `hmac-sha256`.
   */
  secret?: string | readonly string[];
  /**
   * The service's published keys (`jwksKeySource('<api>/.well-known/webhook-signing-keys.json')`),
   * for an endpoint whose `signature_schemes` include `ed25519` (ADR 0044). With a secret too, a
   * delivery is authentic when either scheme verifies.
   */
  jwks?: JwksKeySource;
  /** Runs after the answer has been sent, one event at a time, at most once per event id. */
  onEvent: (event: WebhookEvent, delivery: DeliveryInfo) => void | Promise<void>;
  /** PEM certificate (chain) and key; without them the server is plain HTTP. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Larger bodies get a 413 without being read further. Default 1 MiB. */
  maxBodyBytes?: number;
  /** How many recent event ids are remembered to drop duplicates. Default 10 000. */
  recentIdsCapacity?: number;
  /** Queue length from which new events get a 503 (the sender retries later). Default 10 000. */
  maxQueueLength?: number;
  /** Called when onEvent throws or rejects; the default writes a JSON line to stderr. */
  onError?: (error: unknown, event: WebhookEvent) => void;
  /** Called for each delivery answered 401 because its signature did not verify. */
  onRejected?: (delivery: DeliveryInfo) => void;
  /**
   * How far a delivery's signed `webhook-timestamp` may be from this clock, in seconds; older
   * or later ones are replays (or a clock far off) and get a 401. Default 300.
   */
  timestampToleranceSeconds?: number;
}

export type ReceiverServer = (HttpServer | HttpsServer) & {
  /** Resolves once every accepted event has been processed (for a graceful shutdown). */
  drain(): Promise<void>;
};

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_RECENT_IDS = 10_000;
const DEFAULT_MAX_QUEUE = 10_000;

interface QueuedEvent {
  event: WebhookEvent;
  delivery: DeliveryInfo;
}

class BodyTooLarge extends Error {}

export function createReceiver(options: ReceiverOptions): ReceiverServer {
  const secrets = secretsOf(options);
  if (secrets.length === 0 && options.jwks === undefined) {
    throw new RangeError('give a secret, a JWKS key source, or both');
  }
  const queue = createEventQueue(options, options.onError ?? defaultOnError);
  const handle = createDeliveryHandler(options, secrets, queue);

  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    handle(request, response).catch(() => {
      // The client went away mid-body, or similar: nothing was accepted, so the sender retries.
      if (response.headersSent) {
        response.destroy();
      } else {
        answer(response, 400, 'bad request', { connection: 'close' });
      }
    });
  };

  return Object.assign(createServer(options.tls, listener), {
    drain: () => queue.drain(),
  });
}

function secretsOf(options: ReceiverOptions): string[] {
  if (options.secret === undefined) {
    return [];
  }
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((secret) => secret === '')) {
    throw new RangeError('secret must not be empty');
  }
  return secrets;
}

interface EventQueue {
  readonly length: number;
  push: (queued: QueuedEvent) => void;
  /** Processes queued events one at a time, unless a worker is at it already. */
  startWorker: () => void;
  /** Resolves once every queued event has been processed. */
  drain: () => Promise<void>;
}

function createEventQueue(
  options: Pick<ReceiverOptions, 'onEvent'>,
  onError: NonNullable<ReceiverOptions['onError']>,
): EventQueue {
  // In memory, so a crash loses accepted events that were not processed yet. A production
  // receiver writes each event to durable storage (a table, a queue) before answering 200; that
  // is still fast, and the sender's retries then cover everything up to that point.
  const queue: QueuedEvent[] = [];
  let worker: Promise<void> | undefined;

  const startWorker = (): void => {
    if (worker !== undefined || queue.length === 0) {
      return;
    }
    worker = (async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        try {
          await options.onEvent(next.event, next.delivery);
        } catch (error) {
          onError(error, next.event);
        }
      }
    })().finally(() => {
      worker = undefined;
      startWorker();
    });
  };

  return {
    get length() {
      return queue.length;
    },
    push: (queued) => {
      queue.push(queued);
    },
    startWorker,
    drain: async () => {
      startWorker();
      while (worker !== undefined) {
        await worker;
      }
    },
  };
}

function createDeliveryHandler(
  options: ReceiverOptions,
  secrets: readonly string[],
  queue: EventQueue,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxQueueLength = options.maxQueueLength ?? DEFAULT_MAX_QUEUE;
  const recent = new RecentIds(options.recentIdsCapacity ?? DEFAULT_RECENT_IDS);

  return async (request, response) => {
    if (request.method !== 'POST') {
      return answer(response, 405, 'only POST is accepted', { allow: 'POST' });
    }
    let rawBody: Buffer;
    try {
      rawBody = await readBody(request, maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        // The rest of the body is not worth reading: close the connection once answered.
        return answer(response, 413, 'body too large', { connection: 'close' });
      }
      throw error;
    }
    const receivedAt = new Date();

    // Verify before parsing: nothing about an unauthenticated body deserves any work.
    const verification = await verifyDelivery(rawBody, request.headers, {
      secrets,
      jwks: options.jwks,
      toleranceSeconds: options.timestampToleranceSeconds,
      now: receivedAt,
    });
    const sequence = sequenceOf(request.headers);
    const delivery: DeliveryInfo = {
      rawBody,
      headers: request.headers,
      receivedAt,
      verification,
      ...(sequence !== undefined && { sequence }),
    };
    if (verification.verified === false) {
      options.onRejected?.(delivery);
      return answer(response, 401, verification.failure ?? 'invalid signature');
    }

    const event = parseEvent(rawBody);
    if (event === undefined) {
      // Authentic but not an envelope: a retry cannot fix it, but the sender's logs should show it.
      return answer(response, 400, 'body is not an event envelope');
    }

    // Deduplicate by the body's id, which the signature covers; the X-SVC-Event-Id header carries
    // the same value but is not signed.
    if (recent.has(event.id)) {
      return answer(response, 200, 'duplicate ignored');
    }
    if (queue.length >= maxQueueLength) {
      return answer(response, 503, 'busy, retry later', { 'retry-after': '30' });
    }
    recent.add(event.id);
    queue.push({ event, delivery });
    // Spec 6.1: the sender allows 10 s for an answer, so the work starts only once the answer is
    // out ('close' follows 'finish', and also comes if the client hangs up first).
    response.once('close', queue.startWorker);
    answer(response, 200, 'accepted');
  };
}

function createServer(
  tls: ReceiverOptions['tls'],
  listener: (request: IncomingMessage, response: ServerResponse) => void,
): HttpServer | HttpsServer {
  // Bounded request times, so a slow or stalled client cannot hold connections for minutes.
  const serverOptions = { requestTimeout: 30_000, headersTimeout: 10_000 };
  return tls
    ? createHttpsServer({ ...serverOptions, cert: tls.cert, key: tls.key }, listener)
    : createHttpServer(serverOptions, listener);
}

function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: Buffer | Error) => {
      if (settled) {
        return;
      }
      settled = true;
      request.removeListener('data', onData);
      if (result instanceof Error) {
        reject(result);
      } else {
        resolve(result);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        settle(new BodyTooLarge());
      } else {
        chunks.push(chunk);
      }
    };
    request.on('data', onData);
    request.once('end', () => settle(Buffer.concat(chunks, size)));
    request.once('error', (error) => settle(error));
    request.once('close', () => settle(new Error('the request closed before its body ended')));
  });
}

function parseEvent(rawBody: Buffer): WebhookEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  const { id, type } = value as Record<string, unknown>;
  if (typeof id !== 'string' || id === '' || typeof type !== 'string') {
    return undefined;
  }
  return value as WebhookEvent;
}

function answer(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  response.end(`${message}\n`);
}

function defaultOnError(error: unknown, event: WebhookEvent): void {
  process.stderr.write(
    `${JSON.stringify({
      level: 'error',
      msg: 'processing an event failed',
      event_id: event.id,
      event_type: event.type,
      error: error instanceof Error ? error.message : String(error),
    })}\n`,
  );
}
