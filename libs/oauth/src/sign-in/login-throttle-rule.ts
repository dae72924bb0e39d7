/** How many failed sign-ins an account may have in a window before further tries are refused. */
export interface ThrottlePolicy {
  maxFailures: number;
  windowSeconds: number;
}

/** Five failures in fifteen minutes (OWASP's authentication guidance suggests this order). */
export const ACCOUNT_THROTTLE_POLICY: ThrottlePolicy = { maxFailures: 5, windowSeconds: 900 };

export interface FailureRecord {
  failures: number;
  windowStartedAt: Date;
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A sign-in is refused without looking at the password while the account has had
 * `maxFailures` failures in a window that started with its first failure and has not ended.
 */
export function decideThrottle(
  record: FailureRecord | undefined,
  now: Date,
  policy: ThrottlePolicy = ACCOUNT_THROTTLE_POLICY,
): ThrottleDecision {
  if (!record) {
    return { allowed: true };
  }
  const windowEndsAt = record.windowStartedAt.getTime() + policy.windowSeconds * 1000;
  if (record.failures < policy.maxFailures || windowEndsAt <= now.getTime()) {
    return { allowed: true };
  }
  return { allowed: false, retryAfterSeconds: Math.ceil((windowEndsAt - now.getTime()) / 1000) };
}

/** The record after one more failure: counted in the current window, or starting a new one. */
export function recordFailure(
  record: FailureRecord | undefined,
  now: Date,
  policy: ThrottlePolicy = ACCOUNT_THROTTLE_POLICY,
): FailureRecord {
  if (!record || record.windowStartedAt.getTime() + policy.windowSeconds * 1000 <= now.getTime()) {
    return { failures: 1, windowStartedAt: now };
  }
  return { failures: record.failures + 1, windowStartedAt: record.windowStartedAt };
}
