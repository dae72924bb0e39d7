import { DELIVERY_HEADERS } from '@svc/contracts';
import { verifySignature, verifyStandardWebhook } from '@svc/signing';
import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, Server } from 'node:https';
import { Socket } from 'node:net';
import { TEST_SERVER_CERT_FILE, TEST_SERVER_KEY_FILE } from '../../support/https-receiver';

/**
 * What became of one POST at the receiver:
 * - `accepted`: a 2xx whose whole answer was written (the receiver took the event);
 * - `refused`: another status, whole (the receiver did not take it);
 * - `closed-mid-answer`: the status line went out, then the receiver closed the connection;
 * - `dropped`: the receiver closed the connection without answering (it was going down);
 * - `abandoned-by-sender`: the sender went away before the answer was written (a killed engine);
 * - `unanswered`: still being answered (never seen once a scenario has settled).
 */
export type PostOutcome =
  'accepted' | 'refused' | 'closed-mid-answer' | 'dropped' | 'abandoned-by-sender' | 'unanswered';

/** One POST as the receiver saw it. */
export interface ReceivedPost {
  endpoint: string;
  eventId: string;
  /** The envelope's tenant_id (an event is its tenant's: ADR 0016). */
  tenantId: string;
  deliveryId: string;
  attempt: number;
  /**
   * X-SVC-Sequence as it came (null when the POST had none): kept unparsed, so that the ledger
   * can tell a missing number from a malformed one.
   */
  sequence: string | null;
  /** Date.now() when the whole request had arrived. */
  receivedAt: number;
  /** Date.now() when the answer was written, or the connection closed. */
  answeredAt: number | null;
  outcome: PostOutcome;
  /** X-SVC-Signature-256 and the Standard Webhooks signature, both with the endpoint's secret. */
  signatureValid: boolean;
  /** X-SVC-Event-Id and webhook-id name the envelope's own id. */
  headersMatchBody: boolean;
  /** The sender's port of the connection it came on: which engine process sent it. */
  senderPort: number;
}

/** How to answer one POST; the default is 200 at once. */
export type Answer =
  | { status?: number; delayMs?: number }
  /** Writes the status line (200) and part of the body, then closes the connection. */
  | { closeMidAnswer: 'after-headers' | 'in-body'; delayMs?: number }
  /** Closes the connection without a word. */
  | { drop: true };

export type AnswerPlan = (post: ReceivedPost, index: number) => Answer;

const certificate = {
  cert: readFileSync(TEST_SERVER_CERT_FILE),
  key: readFileSync(TEST_SERVER_KEY_FILE),
};

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * A webhook receiver of the fault suite: HTTPS with the test CA's certificate on a port that
 * stays its own, so that it can go down (connections refused) and come back up on the same URL.
 * It records every POST (event, delivery, attempt, sequence number, time, signature check) and
 * what it answered, which is what the ledger compares with the delivery log.
 */
export class RecordingReceiver {
  readonly posts: ReceivedPost[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private plan: AnswerPlan = () => ({});
  private up = false;
  /** Chosen at the first start, kept at every restart. */
  private boundPort = 0;

  private constructor(
    /** The endpoint's name in the scenario (also the URL's path). */
    readonly endpoint: string,
    private readonly secret: string,
  ) {}

  static async start(endpoint: string, secret: string): Promise<RecordingReceiver> {
    const receiver = new RecordingReceiver(endpoint, secret);
    await receiver.listen();
    return receiver;
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}/hooks/${this.endpoint}`;
  }

  get isUp(): boolean {
    return this.up;
  }

  answerWith(plan: AnswerPlan): void {
    this.plan = plan;
  }

  /** Stops listening (new connections are refused) and closes idle connections. */
  async goDown(): Promise<void> {
    if (!this.up || !this.server) {
      return;
    }
    this.up = false;
    const server = this.server;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Idle keep-alive connections would carry the next request: close them now. A request
      // being answered finishes, and one arriving on an open connection meanwhile is dropped.
      server.closeIdleConnections();
    });
    this.server = undefined;
  }

  async comeUp(): Promise<void> {
    if (this.up) {
      return;
    }
    await this.listen();
  }

  async close(): Promise<void> {
    this.timers.forEach((timer) => clearTimeout(timer));
    this.timers.clear();
    this.up = false;
    const server = this.server;
    this.server = undefined;
    this.sockets.forEach((socket) => socket.destroy());
    if (server) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private async listen(): Promise<void> {
    const server = createServer(certificate, (request, response) => {
      this.answer(request, response).catch((error: unknown) => {
        console.error(`receiver ${this.endpoint}: answering failed`, error);
        response.destroy();
      });
    });
    // Connections stay open between requests, as a receiver behind a keep-alive balancer would.
    server.keepAliveTimeout = 60_000;
    server.on('secureConnection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.boundPort, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.up = true;
    this.boundPort = (server.address() as { port: number }).port;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    let envelope: { id?: string; tenant_id?: string } = {};
    try {
      envelope = JSON.parse(rawBody.toString('utf8')) as typeof envelope;
    } catch {
      // recorded with empty ids: the ledger reports it
    }
    const eventId = header(request, 'x-svc-event-id') ?? '';
    const post: ReceivedPost = {
      endpoint: this.endpoint,
      eventId,
      tenantId: envelope.tenant_id ?? '',
      deliveryId: header(request, 'x-svc-delivery-id') ?? '',
      attempt: Number(header(request, 'x-svc-delivery-attempt') ?? NaN),
      sequence: header(request, DELIVERY_HEADERS.sequence) ?? null,
      receivedAt: Date.now(),
      answeredAt: null,
      outcome: 'unanswered',
      signatureValid:
        verifySignature(rawBody, header(request, 'x-svc-signature-256'), this.secret) &&
        verifyStandardWebhook(
          rawBody,
          {
            id: header(request, 'webhook-id'),
            timestamp: header(request, 'webhook-timestamp'),
            signature: header(request, 'webhook-signature'),
          },
          this.secret,
        ),
      headersMatchBody: eventId === envelope.id && header(request, 'webhook-id') === envelope.id,
      senderPort: request.socket.remotePort ?? 0,
    };
    const index = this.posts.push(post) - 1;
    const settle = (outcome: PostOutcome, answeredAt = Date.now()) => {
      if (post.outcome === 'unanswered') {
        post.outcome = outcome;
        post.answeredAt = answeredAt;
      }
    };
    response.once('close', () => settle('abandoned-by-sender'));
    if (!this.up) {
      settle('dropped');
      request.socket.destroy();
      return;
    }
    const planned = this.plan(post, index);
    if ('drop' in planned) {
      settle('dropped');
      request.socket.destroy();
      return;
    }
    if (planned.delayMs) {
      await this.sleep(planned.delayMs);
    }
    if (response.destroyed || post.outcome !== 'unanswered') {
      settle('abandoned-by-sender');
      return;
    }
    if ('closeMidAnswer' in planned) {
      // The whole status line and headers, promising a body that never comes whole.
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '64' });
      response.flushHeaders();
      if (planned.closeMidAnswer === 'in-body') {
        response.write('part of an answer');
      }
      settle('closed-mid-answer');
      await this.sleep(5);
      request.socket.destroy();
      return;
    }
    const status = planned.status ?? 200;
    // Answered when the answer is handed to the socket: 'finish' comes when this process's event
    // loop gets to it, which under load can be after the sender already read the answer and sent
    // its next delivery (a FIFO endpoint's next would then look in flight with this one).
    const handedOverAt = Date.now();
    response.once('finish', () =>
      settle(status >= 200 && status < 300 ? 'accepted' : 'refused', handedOverAt),
    );
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(status >= 200 && status < 300 ? 'ok' : 'not now');
  }
}

/** 200 after a delay drawn between `minMs` and `maxMs`, so that attempts are in flight. */
export function acceptAfter(minMs: number, maxMs: number): AnswerPlan {
  return () => ({ delayMs: minMs + Math.floor(Math.random() * (maxMs - minMs + 1)) });
}
