import { SubjectScheme } from '@svc/contracts';
import type {
  InboundPayload,
  NewEventClaim,
  OrderedDelivery,
  ResumedClaims,
} from '@svc/deliveries';
import type {
  DeliveryCommit,
  RecordReceipt,
} from '../../../apps/delivery/src/recording/delivery-recorder';
import type { DirectoryEndpoint } from '../../../apps/delivery/src/fan-out/endpoint-directory';
import type {
  Clock,
  DeadLetters,
  IngestLedger,
  IntakeMessage,
  MessageSource,
  PulledBatch,
  RecordingGate,
  RecordStore,
  SubscriberLookup,
} from '../../../apps/delivery/src/ports';
import type {
  DispatchOutcome,
  DispatchTerms,
} from '../../../apps/delivery/src/dispatch/dispatcher';
import type { AttemptOrder } from '../../../apps/delivery/src/dispatch/attempt-runner';
import { directoryEndpoint } from '../../support/builders/directory-endpoint-builders';

/**
 * In-memory fakes of the delivery engine's ports (apps/delivery/src/ports.ts), for the medium
 * tier: no NATS, no PostgreSQL, no HTTP. Each records what was asked of it, and some can be told
 * to fail.
 */

export const SUBJECTS = new SubjectScheme('svc');

/** A message as JetStream would hand it out; every reply to it is recorded, in order. */
export class FakeMessage implements IntakeMessage {
  readonly replies: string[] = [];
  readonly time: Date;
  readonly info: IntakeMessage['info'];
  readonly data: Uint8Array;
  workingCalls = 0;

  constructor(
    readonly subject: string,
    body: string | object,
    readonly seq: number,
    options: { redelivered?: boolean; publishedAt?: number; pending?: number } = {},
  ) {
    this.data = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    this.time = new Date(options.publishedAt ?? Date.now());
    this.info = {
      stream: 'SVC_EVENTS',
      pending: options.pending ?? 0,
      deliveryCount: options.redelivered ? 2 : 1,
      redelivered: options.redelivered ?? false,
    };
  }

  ack(): void {
    this.replies.push('ack');
  }

  nak(delayMs?: number): void {
    this.replies.push(delayMs === undefined ? 'nak' : `nak ${delayMs}`);
  }

  working(): void {
    this.workingCalls += 1;
  }
}

/** A valid platform event of a tenant, on its subject. */
export function eventMessage(
  tenantId: string,
  seq: number,
  overrides: { id?: string; data?: Record<string, unknown>; redelivered?: boolean } = {},
): FakeMessage {
  const envelope = {
    id: overrides.id ?? `evt_${String(seq).padStart(26, '0')}`,
    type: 'alert.created',
    tenant_id: tenantId,
    created_at: new Date().toISOString(),
    data: overrides.data ?? { alert_id: `a${seq}`, severity: 'high' },
  };
  return new FakeMessage(SUBJECTS.event(tenantId, 'alert.created'), envelope, seq, {
    redelivered: overrides.redelivered,
  });
}

/** A consumer whose messages are queued by the test; each fetch takes what is there. */
export class FakeMessageSource implements MessageSource {
  private readonly queued: FakeMessage[] = [];
  private wake: (() => void) | undefined;
  fetches: number[] = [];

  push(...messages: FakeMessage[]): void {
    this.queued.push(...messages);
    this.wake?.();
  }

  fetch(max: number, expiresMs: number): Promise<PulledBatch> {
    this.fetches.push(max);
    let stopped = false;
    const stopWaiting = () => {
      stopped = true;
      this.wake?.();
    };
    const take = async (): Promise<FakeMessage[]> => {
      if (this.queued.length === 0 && !stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(expiresMs, 50));
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
      return stopped ? [] : this.queued.splice(0, max);
    };
    return Promise.resolve({
      stop: stopWaiting,
      async *[Symbol.asyncIterator]() {
        yield* await take();
      },
    });
  }
}

/**
 * The stored bodies, numbers and deliveries, as the work queue would keep them: a new event's
 * body is stored and its endpoints numbered from per-endpoint counters (ADR 0045).
 */
export class FakeLedger implements IngestLedger {
  readonly bodies = new Map<string, string>();
  readonly served = new Map<string, Set<string>>();
  /** Per `${tenant} ${event}`: each endpoint's number. */
  readonly numbers = new Map<string, Map<string, number>>();
  readonly counters = new Map<string, number>();
  /** Per `${tenant} ${event}`: the endpoints whose delivery took a place in their FIFO queue. */
  readonly queued = new Map<string, Set<string>>();
  failure: Error | undefined;
  /** The events whose new-event claims were asked for, in that order. */
  readonly asked: string[] = [];
  /** While set, new-event claims wait for `releaseClaims` (a slow numbering statement). */
  holdClaims = false;
  private readonly heldClaims: (() => void)[] = [];

  claimForNewEvent(
    payload: InboundPayload,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[] = [],
  ): Promise<NewEventClaim> {
    this.asked.push(payload.eventId);
    if (this.holdClaims) {
      // Numbered in the order asked, as NumberingRuns does, once released.
      return new Promise<void>((resolve) => this.heldClaims.push(resolve)).then(() =>
        this.claimNow(payload, endpointIds, ordered),
      );
    }
    return this.claimNow(payload, endpointIds, ordered);
  }

  /** Lets the held claims go, in the order they were asked for. */
  releaseClaims(): void {
    this.holdClaims = false;
    this.heldClaims.splice(0).forEach((release) => release());
  }

  private claimNow(
    payload: InboundPayload,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[],
  ): Promise<NewEventClaim> {
    if (this.failure) {
      return Promise.reject(this.failure);
    }
    const key = `${payload.tenantId} ${payload.eventId}`;
    const storedBody = this.bodies.get(key);
    if (storedBody !== undefined) {
      return Promise.resolve({ kind: 'stored', storedBody });
    }
    if (endpointIds.length > 0) {
      this.bodies.set(key, payload.body);
      this.queued.set(key, new Set(ordered.map((delivery) => delivery.endpointId)));
    }
    return Promise.resolve({ kind: 'claimed', numbers: this.claim(key, endpointIds) });
  }

  claimForResumedEvent(
    payload: Pick<InboundPayload, 'tenantId' | 'eventId'>,
    endpointIds: readonly string[],
    ordered: readonly OrderedDelivery[],
  ): Promise<ResumedClaims> {
    const key = `${payload.tenantId} ${payload.eventId}`;
    const queued = this.queued.get(key) ?? new Set<string>();
    for (const { endpointId } of ordered) {
      if (!this.numbers.get(key)?.has(endpointId)) {
        queued.add(endpointId);
      }
    }
    this.queued.set(key, queued);
    return Promise.resolve({ numbers: this.claim(key, endpointIds), queued: new Set(queued) });
  }

  endpointsServed(tenantId: string, eventId: string): Promise<Set<string>> {
    return Promise.resolve(this.served.get(`${tenantId} ${eventId}`) ?? new Set());
  }

  private claim(key: string, endpointIds: readonly string[]): Map<string, number> {
    const numbers = this.numbers.get(key) ?? new Map<string, number>();
    for (const endpointId of endpointIds) {
      if (!numbers.has(endpointId)) {
        const next = (this.counters.get(endpointId) ?? 0) + 1;
        this.counters.set(endpointId, next);
        numbers.set(endpointId, next);
      }
    }
    this.numbers.set(key, numbers);
    return new Map(numbers);
  }
}

export function endpoint(id: string, tenantId: string): DirectoryEndpoint {
  return directoryEndpoint({ id, tenantId });
}

export class FakeSubscribers implements Pick<SubscriberLookup, 'subscribers' | 'endpoint'> {
  readonly byTenant = new Map<string, DirectoryEndpoint[]>();
  /** Endpoints of a tenant that exist but subscribe to nothing now. */
  readonly unsubscribed = new Map<string, DirectoryEndpoint[]>();

  subscribers(tenantId: string): Promise<DirectoryEndpoint[]> {
    return Promise.resolve(this.byTenant.get(tenantId) ?? []);
  }

  endpoint(tenantId: string, endpointId: string): Promise<DirectoryEndpoint | null> {
    const all = [
      ...(this.byTenant.get(tenantId) ?? []),
      ...(this.unsubscribed.get(tenantId) ?? []),
    ];
    return Promise.resolve(all.find((endpoint) => endpoint.id === endpointId) ?? null);
  }
}

/**
 * Attempts as the dispatcher would make them: answered at once with `outcome`, or held until
 * `releaseHeld()` while `hold` is set.
 */
export class FakeDispatcher {
  readonly orders: AttemptOrder[] = [];
  outcome: DispatchOutcome['kind'] = 'attempted';
  /** Thrown by every dispatch while set: the record of an attempt could not be written. */
  failure: Error | undefined;
  hold = false;
  private held: (() => void)[] = [];

  async dispatch(order: AttemptOrder, terms: DispatchTerms): Promise<DispatchOutcome> {
    this.orders.push(order);
    const waitOver = terms.beginSlotWait?.() ?? (() => undefined);
    waitOver();
    if (this.hold) {
      await new Promise<void>((resolve) => this.held.push(resolve));
    }
    if (this.failure) {
      throw this.failure;
    }
    switch (this.outcome) {
      case 'busy':
        return { kind: 'busy' };
      case 'rate-limited':
        return { kind: 'rate-limited', retryInMs: 700 };
      case 'attempted':
        return {
          kind: 'attempted',
          receipt: {
            committed: true,
            state: {} as never,
            conclusion: 'succeeded',
            result: {
              succeeded: true,
              statusCode: 200,
              errorKind: null,
              errorMessage: null,
              latencyMs: 1,
              responseExcerpt: 'ok',
            },
          },
        };
    }
  }

  releaseHeld(): void {
    this.held.splice(0).forEach((release) => release());
  }
}

/** Delivery records, kept in memory; can drop one as a racing writer's win, or fail. */
export class FakeRecordStore implements RecordStore {
  readonly commits: DeliveryCommit[] = [];
  loseRaces = false;
  failure: Error | undefined;

  record(commit: DeliveryCommit): Promise<RecordReceipt> {
    if (this.failure) {
      return Promise.reject(this.failure);
    }
    this.commits.push(commit);
    return Promise.resolve(
      this.loseRaces ? { committed: false } : { committed: true, state: {} as never },
    );
  }
}

export class FakeDeadLetters implements DeadLetters {
  readonly parked: { seq: number; reason: string; detail: string }[] = [];
  failure: Error | undefined;

  park(message: IntakeMessage, reason: string, detail: string): Promise<void> {
    if (this.failure) {
      return Promise.reject(this.failure);
    }
    this.parked.push({ seq: message.seq, reason, detail });
    return Promise.resolve();
  }
}

export class FakeRecordingGate implements RecordingGate {
  healthy = true;
  readonly failures: unknown[] = [];

  whenHealthy(): Promise<void> {
    return Promise.resolve();
  }

  failed(error: unknown): void {
    this.failures.push(error);
  }
}

/** A clock the test moves. */
export class FakeClock implements Clock {
  constructor(private nowMs = Date.parse('2026-11-27T10:00:00.000Z')) {}

  now(): number {
    return this.nowMs;
  }

  advance(ms: number): void {
    this.nowMs += ms;
  }
}

/** Resolves once `condition` holds, polling every few milliseconds (fails after `timeoutMs`). */
export async function until(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) {
      throw new Error('the condition did not hold in time');
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
