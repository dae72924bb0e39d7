/**
 * Spec 6.4 with DESIGN.md's reading (both in docs/spec): `maxAttempts` attempts in all (5: the
 * first try and four retries). After attempt n (1-based, counted since the delivery was last (re)started) fails, the
 * next one is due `scheduleMs[n - 1]` later; the last entry repeats if the schedule is shorter
 * than the attempts allow. Returns null when attempt n was the last: the delivery is abandoned.
 */
export function retryDelayAfter(
  failedAttempt: number,
  scheduleMs: readonly number[],
  maxAttempts: number,
): number | null {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) {
    throw new RangeError(`attempts are numbered from 1, not ${failedAttempt}`);
  }
  if (failedAttempt >= maxAttempts || scheduleMs.length === 0) {
    return null;
  }
  return scheduleMs[Math.min(failedAttempt, scheduleMs.length) - 1];
}
