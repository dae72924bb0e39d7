import {
  asConcurrentAttempt,
  DELIVERY_EVENT_TYPES,
  DeliveryAttempted,
  DeliveryAttemptedEvent,
  DeliveryCancelledEvent,
  DeliveryDeferredEvent,
  DeliveryIdentity,
  DeliveryRedrivenEvent,
  DeliveryReplayedEvent,
  DeliveryScheduledEvent,
} from './delivery-events';
import { DeliveryState } from './delivery-state';
import { AttemptResult } from './rules/attempt-result';
import { DeliveryConclusion } from './rules/endpoint-status';
import { retryDelayAfter } from './rules/retry-schedule';
import { isTestDelivery, TEST_EVENT_TYPE } from './rules/test-events';

/**
 * The command side of a delivery's stream: each `decideX(command, state, now)` is pure and
 * returns the event(s) the command makes, or none. The engine and the API build no delivery
 * event themselves; they run the decision and record what it returns.
 */

/** How many attempts a delivery gets and how far apart (spec 6.4). */
export interface AttemptPolicy {
  retryScheduleMs: readonly number[];
  maxAttempts: number;
}

/**
 * The longest wait a receiver's `Retry-After` can ask for: the spec's longest retry delay (2 h).
 * A longer one is cut to it; the attempt budget is unchanged either way.
 */
export const MAX_RETRY_AFTER_MS = 2 * 3600_000;

const GONE = 410;

/** The numbers of the next attempt: over the delivery's life, and within its current run. */
export function nextAttemptOf(state: DeliveryState | null): {
  attempt: number;
  runAttempt: number;
} {
  return { attempt: (state?.attempts ?? 0) + 1, runAttempt: (state?.runAttempts ?? 0) + 1 };
}

export interface RecordAttempt {
  identity: DeliveryIdentity;
  result: AttemptResult;
  policy: AttemptPolicy;
}

export interface AttemptDecision {
  event: DeliveryAttemptedEvent;
  /** What the attempt means for the delivery, and so for its endpoint's status. */
  conclusion: DeliveryConclusion;
  /**
   * False for a test delivery (ADR 0029): what it comes to is reported to the caller who asked
   * for it, and changes neither the endpoint's status nor the abandonment and retry metrics.
   */
  concernsEndpoint: boolean;
}

/** A test event gets one attempt: a probe is answered at once, never retried (ADR 0029). */
export const TEST_ATTEMPT_POLICY: AttemptPolicy = { retryScheduleMs: [], maxAttempts: 1 };

/**
 * An attempt was made: a success ends the delivery; a failure schedules the next attempt after
 * the retry schedule's delay, or abandons the delivery when its run has had its last attempt.
 */
export function decideAttempted(
  command: RecordAttempt,
  state: DeliveryState | null,
  now: Date,
): AttemptDecision {
  const { identity, result } = command;
  const test = isTestDelivery(identity);
  const policy = test ? TEST_ATTEMPT_POLICY : command.policy;
  const { attempt, runAttempt } = nextAttemptOf(state);
  // 410 Gone: the receiver says the endpoint is no more; retrying would only repeat that (ADR 0027).
  const gone = !result.succeeded && result.statusCode === GONE;
  const scheduled =
    result.succeeded || gone
      ? null
      : retryDelayAfter(runAttempt, policy.retryScheduleMs, policy.maxAttempts);
  // A 429 or 503 with Retry-After postpones the next attempt to at least then (capped); it never
  // adds an attempt or brings one forward.
  const delay =
    scheduled === null || !result.retryAfterMs
      ? scheduled
      : Math.max(scheduled, Math.min(result.retryAfterMs, MAX_RETRY_AFTER_MS));
  const abandoned = !result.succeeded && delay === null;
  const conclusion: DeliveryConclusion = result.succeeded
    ? 'succeeded'
    : gone
      ? 'gone'
      : abandoned
        ? 'abandoned'
        : 'retrying';
  // Spelled out rather than spread: V8 (Node 20) adds each property after a spread on a slow
  // path, which made this one object cost about 10 µs per attempt.
  const data: DeliveryAttempted = {
    delivery_id: identity.delivery_id,
    event_id: identity.event_id,
    endpoint_id: identity.endpoint_id,
    tenant_id: identity.tenant_id,
    event_type: identity.event_type,
    sequence: identity.sequence,
    attempt,
    run_attempt: runAttempt,
    succeeded: result.succeeded,
    status_code: result.statusCode,
    error_kind: result.errorKind,
    error_message: result.errorMessage,
    latency_ms: result.latencyMs,
    response_excerpt: result.responseExcerpt,
    attempted_at: now.toISOString(),
    next_attempt_at: delay === null ? null : new Date(now.getTime() + delay).toISOString(),
    abandoned,
  };
  return {
    event: { type: DELIVERY_EVENT_TYPES.attempted, data },
    conclusion,
    concernsEndpoint: !test,
  };
}

export interface DeferFirstAttempt {
  identity: DeliveryIdentity;
  /** How much later the schedule tries it. */
  delayMs: number;
  /** `ordered`: the endpoint is FIFO, and the delivery queues for its turn (ADR 0045). */
  reason?: 'endpoint_busy' | 'ordered';
}

/**
 * A first attempt put off to the schedule: its endpoint was at its concurrency limit, or takes
 * its deliveries one at a time in order.
 */
export function decideDeferred(
  command: DeferFirstAttempt,
  state: DeliveryState | null,
  now: Date,
): DeliveryDeferredEvent[] {
  if (state !== null) {
    // Only a first attempt is deferred; a delivery that exists is already on the schedule.
    return [];
  }
  return [
    {
      type: DELIVERY_EVENT_TYPES.deferred,
      data: {
        ...command.identity,
        due_at: new Date(now.getTime() + command.delayMs).toISOString(),
        reason: command.reason ?? 'endpoint_busy',
      },
    },
  ];
}

export interface CancelIfUnsendable {
  /** Whether the delivery's endpoint still exists. */
  endpointFound: boolean;
  /** Whether it was disabled by a 410 Gone (ADR 0027); absent: it was not. */
  endpointDisabled?: boolean;
  /** Whether the body of the delivery's event is stored for its tenant. */
  payloadFound: boolean;
}

/**
 * A due delivery that cannot be sent is cancelled: its endpoint was deleted or disabled, or no
 * body of its tenant's event is stored (ADR 0016). A delivery that is no longer pending is left
 * alone.
 */
export function decideCancelled(
  command: CancelIfUnsendable,
  state: DeliveryState,
  now: Date,
): DeliveryCancelledEvent[] {
  const disabled = command.endpointFound && command.endpointDisabled === true;
  if (state.status !== 'pending' || (command.endpointFound && command.payloadFound && !disabled)) {
    return [];
  }
  return [
    {
      type: DELIVERY_EVENT_TYPES.cancelled,
      data: {
        delivery_id: state.id,
        reason: !command.endpointFound
          ? 'endpoint_deleted'
          : disabled
            ? 'endpoint_disabled'
            : 'payload_missing',
        cancelled_at: now.toISOString(),
      },
    },
  ];
}

export interface RedriveAbandoned {
  /** Only deliveries abandoned at or after this time are re-driven. */
  abandonedSince: Date;
}

/**
 * Re-drive an abandoned delivery (ADR 0011): a fresh run of attempts, due at once. A failed test
 * event is not re-driven: it was a probe, answered when it was made (ADR 0029).
 */
export function decideRedriven(
  command: RedriveAbandoned,
  state: DeliveryState,
  now: Date,
): DeliveryRedrivenEvent[] {
  if (
    state.status !== 'abandoned' ||
    isTestDelivery(state) ||
    state.completedAt === null ||
    state.completedAt < command.abandonedSince
  ) {
    return [];
  }
  return [
    {
      type: DELIVERY_EVENT_TYPES.redriven,
      data: { delivery_id: state.id, due_at: now.toISOString(), redriven_at: now.toISOString() },
    },
  ];
}

export interface ScheduleTestEvent {
  /** The test event's delivery: a fresh event id, so a new delivery. */
  deliveryId: string;
  eventId: string;
  endpointId: string;
  tenantId: string;
}

/**
 * `POST /v1/webhooks/{id}/test` (ADR 0029): a delivery of a test event to that one endpoint,
 * due at once, whether or not the endpoint subscribes to it. Its event is new, so its delivery is
 * too; one that exists already is left alone.
 */
export function decideTestScheduled(
  command: ScheduleTestEvent,
  state: DeliveryState | null,
  now: Date,
): DeliveryScheduledEvent[] {
  if (state !== null) {
    return [];
  }
  return [
    {
      type: DELIVERY_EVENT_TYPES.scheduled,
      data: {
        delivery_id: command.deliveryId,
        event_id: command.eventId,
        endpoint_id: command.endpointId,
        tenant_id: command.tenantId,
        event_type: TEST_EVENT_TYPE,
        due_at: now.toISOString(),
        reason: 'test_requested',
      },
    },
  ];
}

export interface ReplayDelivery {
  /**
   * Whether an engine is making an attempt of the delivery at this moment (its claim on the
   * schedule holds): that attempt is the re-send asked for.
   */
  attemptInFlight: boolean;
}

/**
 * Replay (ADR 0029): send a delivery again, whatever its status (succeeded, abandoned, cancelled
 * or pending), as a fresh run of attempts due at once; attempt numbers keep counting. A pending
 * delivery is brought forward to now. Nothing is decided while an attempt of it is in flight.
 */
export function decideReplayed(
  command: ReplayDelivery,
  state: DeliveryState,
  now: Date,
): DeliveryReplayedEvent[] {
  if (command.attemptInFlight) {
    return [];
  }
  return [
    {
      type: DELIVERY_EVENT_TYPES.replayed,
      data: {
        delivery_id: state.id,
        status_before: state.status,
        due_at: now.toISOString(),
        replayed_at: now.toISOString(),
      },
    },
  ];
}

export interface RecordRacedAttempt {
  /** The attempt as it was made, under the delivery id that lost the race. */
  attempt: DeliveryAttempted;
}

/**
 * An attempt lost the race to its delivery (another engine, or a second copy of the event, made
 * the delivery first). The receiver saw it, so it is recorded in the delivery that won, as a
 * concurrent attempt that schedules nothing (ADR 0016).
 */
export function decideRacedAttempt(
  command: RecordRacedAttempt,
  winner: DeliveryState,
): DeliveryAttemptedEvent {
  return {
    type: DELIVERY_EVENT_TYPES.attempted,
    data: asConcurrentAttempt(command.attempt, winner),
  };
}
