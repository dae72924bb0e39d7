import {
  asConcurrentAttempt,
  DELIVERY_EVENT_TYPES,
  DeliveryAttempted,
  DeliveryAttemptedEvent,
  DeliveryCancelledEvent,
  DeliveryDeferredEvent,
  DeliveryIdentity,
  DeliveryRedrivenEvent,
} from './delivery-events';
import { DeliveryState } from './delivery-state';
import { AttemptResult } from './rules/attempt-result';
import { DeliveryConclusion } from './rules/endpoint-status';
import { retryDelayAfter } from './rules/retry-schedule';

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
}

/**
 * An attempt was made: a success ends the delivery; a failure schedules the next attempt after
 * the retry schedule's delay, or abandons the delivery when its run has had its last attempt.
 */
export function decideAttempted(
  command: RecordAttempt,
  state: DeliveryState | null,
  now: Date,
): AttemptDecision {
  const { identity, result, policy } = command;
  const { attempt, runAttempt } = nextAttemptOf(state);
  const scheduled = result.succeeded
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
  return { event: { type: DELIVERY_EVENT_TYPES.attempted, data }, conclusion };
}

export interface DeferFirstAttempt {
  identity: DeliveryIdentity;
  /** How much later the schedule tries it. */
  delayMs: number;
}

/** A first attempt met its endpoint at its concurrency limit: put off to the schedule. */
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
        reason: 'endpoint_busy',
      },
    },
  ];
}

export interface CancelIfUnsendable {
  /** Whether the delivery's endpoint still exists. */
  endpointFound: boolean;
  /** Whether the body of the delivery's event is stored for its tenant. */
  payloadFound: boolean;
}

/**
 * A due delivery that cannot be sent is cancelled: its endpoint was deleted, or no body of its
 * tenant's event is stored (ADR 0016). A delivery that is no longer pending is left alone.
 */
export function decideCancelled(
  command: CancelIfUnsendable,
  state: DeliveryState,
  now: Date,
): DeliveryCancelledEvent[] {
  if (state.status !== 'pending' || (command.endpointFound && command.payloadFound)) {
    return [];
  }
  return [
    {
      type: DELIVERY_EVENT_TYPES.cancelled,
      data: {
        delivery_id: state.id,
        reason: command.endpointFound ? 'payload_missing' : 'endpoint_deleted',
        cancelled_at: now.toISOString(),
      },
    },
  ];
}

export interface RedriveAbandoned {
  /** Only deliveries abandoned at or after this time are re-driven. */
  abandonedSince: Date;
}

/** Re-drive an abandoned delivery (ADR 0011): a fresh run of attempts, due at once. */
export function decideRedriven(
  command: RedriveAbandoned,
  state: DeliveryState,
  now: Date,
): DeliveryRedrivenEvent[] {
  if (
    state.status !== 'abandoned' ||
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
