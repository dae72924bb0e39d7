/**
 * How long a receiver waits before it raises a missing `X-SVC-Sequence` number: past the time
 * the sender may still be retrying that delivery. Raising sooner reports deliveries that are
 * merely late; much later leaves an abandoned one unnoticed for longer.
 */

export interface RetryPolicy {
  /** Delays before attempts 2, 3, …; the last one repeats if attempts outnumber them. */
  retryDelaysMs: readonly number[];
  maxAttempts: number;
  /** The most one attempt may take before it counts as failed. */
  attemptTimeoutMs: number;
}

/** Spec 6.4 and 7: 5 attempts, 5 s, 30 s, 5 min and 30 min apart, each allowed 10 s. */
export const SPEC_RETRY_POLICY: RetryPolicy = {
  retryDelaysMs: [5_000, 30_000, 300_000, 1_800_000, 7_200_000],
  maxAttempts: 5,
  attemptTimeoutMs: 10_000,
};

/** From a delivery's first attempt starting to its last one ending, at the latest. */
export function retryWindowMs(policy: RetryPolicy): number {
  const { retryDelaysMs, maxAttempts, attemptTimeoutMs } = policy;
  let delays = 0;
  for (let attempt = 2; attempt <= maxAttempts && retryDelaysMs.length > 0; attempt += 1) {
    delays += retryDelaysMs[Math.min(attempt - 2, retryDelaysMs.length - 1)];
  }
  return delays + maxAttempts * attemptTimeoutMs;
}

/**
 * 45 minutes: the spec's retry window (35 min 35 s of delays and five 10 s attempts, 36 min 25 s)
 * with room for the sender's queues and scheduler. A deployment with another
 * DELIVERY_RETRY_SCHEDULE or DELIVERY_MAX_ATTEMPTS needs its own window (`retryWindowMs`).
 */
export const DEFAULT_GAP_WINDOW_MS = 45 * 60_000;

/**
 * How often to look for overdue gaps: a tenth of the window, so that a warning comes at most that
 * much after the window ends, but at least every minute and never more than ten times a second.
 */
export function gapCheckIntervalMs(windowMs: number): number {
  return Math.min(60_000, Math.max(100, Math.floor(windowMs / 10)));
}
