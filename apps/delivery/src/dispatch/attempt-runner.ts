import {
  Context,
  context as otelContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { DELIVERY_HEADERS, DELIVERY_USER_AGENT } from '@svc/contracts';
import {
  AttemptPolicy,
  AttemptResult,
  decideAttempted,
  errorKindOf,
  DeliveryConclusion,
  DeliveryIdentity,
  DeliveryState,
  InboundPayload,
  nextAttemptOf,
} from '@svc/deliveries';
import {
  ed25519SignatureEntries,
  signatureHeaderValue,
  STANDARD_WEBHOOK_HEADERS,
  standardWebhookSignature,
} from '@svc/signing';
import { DeliveryMetrics } from '../delivery-metrics';
import { DirectoryEndpoint, signingSecretsOf } from '../fan-out/endpoint-directory';
import { RecordReceipt, DeliveryRecorder } from '../recording/delivery-recorder';
import type { RecordingHealth } from '../recording/recording-health';
import type { ReceiverAuth } from '@svc/webhook-endpoints';
import { AttemptOptions, HttpSender } from './http-sender';
import {
  AttemptCredentials,
  ReceiverCredentials,
  withExtraHeaders,
} from './receiver-auth/receiver-credentials';
import type { SigningKeyring } from './signing-keyring';

/** One attempt to make: which delivery, to which endpoint, with which exact body. */
export interface AttemptOrder {
  identity: DeliveryIdentity;
  /** The delivery before this attempt; null for a first attempt straight from intake. */
  before: DeliveryState | null;
  endpoint: DirectoryEndpoint;
  /** The envelope exactly as received: these bytes are signed and sent. */
  body: string;
  /** Stored with this record when the event is not stored yet. */
  payload?: InboundPayload;
  /** Trace context of the publisher, so the attempt's span joins the event's trace. */
  parent?: Context;
}

export type AttemptReceipt = RecordReceipt & {
  conclusion: DeliveryConclusion;
  result: AttemptResult;
};

const tracer = trace.getTracer('svc-delivery');

/**
 * Makes one attempt of a delivery: signs the body (spec 6.3), POSTs it, lets `decideAttempted`
 * say whether the delivery is retried or abandoned (spec 6.4), and records the attempt, that
 * decision and any endpoint status change as events before returning.
 */
export class AttemptRunner {
  constructor(
    private readonly sender: HttpSender,
    private readonly recorder: DeliveryRecorder,
    private readonly metrics: DeliveryMetrics,
    private readonly policy: AttemptPolicy,
    private readonly health: Pick<RecordingHealth, 'healthy' | 'whenHealthy'>,
    private readonly keyring: Pick<SigningKeyring, 'currentSigningKeys'>,
    /** The receivers' credentials beyond the signature (ADR 0048). */
    private readonly credentials: Pick<ReceiverCredentials, 'forAttempt' | 'afterRefusal'>,
  ) {}

  /**
   * @param answered called as soon as the HTTP exchange is over, before the record is written:
   * the concurrency bounds are about requests to endpoints, and recording takes no endpoint's
   * capacity (the caller still awaits the record before acknowledging anything).
   */
  async run(order: AttemptOrder, answered: () => void = () => undefined): Promise<AttemptReceipt> {
    // The last look before the POST, with every slot taken: the database may have gone away while
    // this attempt waited for them, and nothing is sent that could not be recorded (it waits, or
    // goes back with its message or to the schedule when the engine stops meanwhile).
    if (!this.health.healthy) {
      await this.health.whenHealthy();
    }
    const { attempt } = nextAttemptOf(order.before);
    return tracer.startActiveSpan(
      'webhook deliver',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'svc.delivery.id': order.identity.delivery_id,
          'svc.event.id': order.identity.event_id,
          'svc.event.type': order.identity.event_type,
          'svc.endpoint.id': order.identity.endpoint_id,
          'svc.delivery.attempt': attempt,
          'http.request.method': 'POST',
        },
      },
      order.parent ?? otelContext.active(),
      async (span) => {
        try {
          const result = await this.send(order, attempt);
          answered();
          span.setAttribute('http.response.status_code', result.statusCode ?? 0);
          if (!result.succeeded) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: result.errorKind ?? 'failed' });
          }
          return await this.record(order, result);
        } finally {
          span.end();
        }
      },
    );
  }

  /**
   * The signature headers the endpoint's schemes ask for (ADR 0044), or why none can be made.
   * `hmac-sha256`: X-SVC-Signature-256 and the `v1,` entries (both secrets during a secret's
   * rotation, ADR 0026); `ed25519`: a `v1a,` entry per key still signing, newest first. Both
   * schemes share one webhook-signature header, as the Standard Webhooks specification allows.
   */
  private signatureHeaders(
    order: AttemptOrder,
    body: Buffer,
    now: Date,
  ): Record<string, string> | { unsigned: string } {
    const { endpoint, identity } = order;
    const sentAt = Math.floor(now.getTime() / 1000);
    const headers: Record<string, string> = {};
    const entries: string[] = [];
    if (endpoint.signatureSchemes.includes('hmac-sha256')) {
      if (endpoint.secret === null) {
        return { unsigned: 'the signing secret cannot be decrypted with the configured keys' };
      }
      headers[DELIVERY_HEADERS.signature] = signatureHeaderValue(body, endpoint.secret);
      entries.push(
        standardWebhookSignature(signingSecretsOf(endpoint, now), identity.event_id, sentAt, body),
      );
    }
    if (endpoint.signatureSchemes.includes('ed25519')) {
      const keys = this.keyring.currentSigningKeys();
      if (keys.length === 0) {
        // Reported as the secret's failure: to the operator both mean "fix the encryption keys".
        return { unsigned: 'no Ed25519 signing key can be decrypted with the configured keys' };
      }
      entries.push(...ed25519SignatureEntries(keys, identity.event_id, sentAt, body));
    }
    headers[STANDARD_WEBHOOK_HEADERS.signature] = entries.join(' ');
    return headers;
  }

  private async send(order: AttemptOrder, attempt: number): Promise<AttemptResult> {
    const now = new Date();
    const sentAt = Math.floor(now.getTime() / 1000);
    const { endpoint } = order;
    if (endpoint.auth === 'unreadable') {
      return notSent(
        'secret_unavailable',
        "the receiver's credentials cannot be decrypted with the configured keys",
        0,
      );
    }
    // Encoded once: the bytes every signature covers are the bytes sent.
    const body = Buffer.from(order.body, 'utf8');
    const signatures = this.signatureHeaders(order, body, now);
    if ('unsigned' in signatures) {
      return notSent('secret_unavailable', signatures.unsigned, 0);
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': DELIVERY_USER_AGENT,
      ...signatures,
      [DELIVERY_HEADERS.eventId]: order.identity.event_id,
      [DELIVERY_HEADERS.eventType]: order.identity.event_type,
      [DELIVERY_HEADERS.deliveryId]: order.identity.delivery_id,
      [DELIVERY_HEADERS.attempt]: String(attempt),
      // Standard Webhooks (ADR 0024): the event id as the message id, so receivers de-duplicate
      // by it, and the send time, signed with the body, so a replay is refused.
      [STANDARD_WEBHOOK_HEADERS.id]: order.identity.event_id,
      [STANDARD_WEBHOOK_HEADERS.timestamp]: String(sentAt),
    };
    // Test deliveries have no number (ADR 0045): a receiver's gap check never counts them.
    if (order.identity.sequence !== undefined) {
      headers[DELIVERY_HEADERS.sequence] = String(order.identity.sequence);
    }
    this.metrics.inFlight.inc();
    try {
      // Without `auth`, today's path: no credentials, no promise more (ADR 0048).
      return endpoint.auth === null
        ? await this.sender.post(
            endpoint.url,
            body,
            headers,
            endpoint.timeoutMs === null ? undefined : { timeoutMs: endpoint.timeoutMs },
          )
        : await this.sendAuthenticated(endpoint, endpoint.auth, body, headers);
    } finally {
      this.metrics.inFlight.dec();
    }
  }

  /**
   * The POST with the receiver's credentials (ADR 0048). An OAuth token the receiver refuses
   * (401) is dropped and the POST made once more with a fresh one, within this attempt: its
   * result is the second exchange's, its latency both's. A token that cannot be had fails the
   * attempt as `auth_token`, nothing sent.
   */
  private async sendAuthenticated(
    endpoint: DirectoryEndpoint,
    auth: ReceiverAuth,
    body: Buffer,
    headers: Record<string, string>,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const post = (credentials: AttemptCredentials) =>
      this.sender.post(endpoint.url, body, withExtraHeaders(headers, credentials.headers), {
        timeoutMs: endpoint.timeoutMs ?? undefined,
        clientCertificate: credentials.clientCertificate,
      } satisfies AttemptOptions);
    let credentials: AttemptCredentials;
    try {
      credentials = await this.credentials.forAttempt(endpoint, auth);
    } catch (error) {
      return tokenFailure(error, started);
    }
    const first = await post(credentials);
    const refreshing =
      first.statusCode === 401 && this.credentials.afterRefusal(endpoint, auth, credentials);
    if (!refreshing) {
      return first;
    }
    try {
      credentials = await refreshing;
    } catch (error) {
      return tokenFailure(error, started);
    }
    const second = await post(credentials);
    return { ...second, latencyMs: first.latencyMs + second.latencyMs };
  }

  private async record(order: AttemptOrder, result: AttemptResult): Promise<AttemptReceipt> {
    const { identity } = order;
    const { event, conclusion, concernsEndpoint } = decideAttempted(
      // The endpoint's own schedule and attempts when it has them (ADR 0048).
      { identity, result, policy: order.endpoint.attemptPolicy ?? this.policy },
      order.before,
      new Date(),
    );
    const receipt = await this.recorder.record({
      deliveryId: identity.delivery_id,
      before: order.before,
      event,
      metadata: { tenant_id: identity.tenant_id },
      payload: order.payload,
      // A test event's attempt leaves the endpoint's status as it is (ADR 0029).
      conclusion: concernsEndpoint
        ? { endpointId: identity.endpoint_id, deliveryId: identity.delivery_id, conclusion }
        : undefined,
      // A FIFO endpoint's queue waits for this record (ADR 0045).
      urgent: order.before?.ordered === true,
    });
    if (receipt.committed) {
      this.metrics.attempts.inc({
        outcome: result.succeeded ? 'succeeded' : 'failed',
        error_kind: result.errorKind ?? 'none',
      });
      this.metrics.attemptDuration.observe(
        { outcome: result.succeeded ? 'succeeded' : 'failed' },
        result.latencyMs / 1000,
      );
      // A failed test is reported to whoever asked for it: it abandons nothing worth an alert.
      if (concernsEndpoint && (conclusion === 'abandoned' || conclusion === 'gone')) {
        this.metrics.deliveriesAbandoned.inc();
      } else if (concernsEndpoint && !result.succeeded) {
        this.metrics.retriesScheduled.inc();
      }
    }
    return receipt.committed
      ? { committed: true, state: receipt.state, conclusion, result }
      : { committed: false, conclusion, result };
  }
}

/** An attempt that sent nothing: no status, no answer. */
function notSent(
  errorKind: AttemptResult['errorKind'],
  errorMessage: string,
  latencyMs: number,
): AttemptResult {
  return {
    succeeded: false,
    statusCode: null,
    errorKind,
    errorMessage,
    latencyMs,
    responseExcerpt: null,
  };
}

/** The receiver's token could not be had: `auth_token`, with the token endpoint's story. */
function tokenFailure(error: unknown, started: number): AttemptResult {
  return notSent(
    errorKindOf(error),
    error instanceof Error ? error.message : String(error),
    Math.round(performance.now() - started),
  );
}
