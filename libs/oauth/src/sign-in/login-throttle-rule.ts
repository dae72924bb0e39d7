/** How many failed sign-ins a key may have in a window before further tries are refused. */
export interface ThrottlePolicy {
  maxFailures: number;
  windowSeconds: number;
}

/** Five failures in fifteen minutes (OWASP's authentication guidance suggests this order). */
export const ACCOUNT_THROTTLE_POLICY: ThrottlePolicy = { maxFailures: 5, windowSeconds: 900 };

/**
 * Twenty per client address in fifteen minutes: enough for a household or an office behind one
 * address, few enough that one attacker cannot lock more than four accounts per window.
 */
export const ADDRESS_THROTTLE_POLICY: ThrottlePolicy = { maxFailures: 20, windowSeconds: 900 };

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

/**
 * The record after one more failure: counted in the current window, or starting a new one.
 * `LoginThrottle` does the same in one SQL statement, before the password is checked.
 */
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
