import {
  DEFAULT_GAP_WINDOW_MS,
  gapCheckIntervalMs,
  retryWindowMs,
  SPEC_RETRY_POLICY,
} from './gap-window';

const MINUTE = 60_000;

describe('retryWindowMs', () => {
  it("is the spec's four delays and five attempts: 36 min 25 s", () => {
    expect(retryWindowMs(SPEC_RETRY_POLICY)).toBe(36 * MINUTE + 25_000);
  });

  it('repeats the last delay when attempts outnumber the delays, as the engine does', () => {
    expect(
      retryWindowMs({ retryDelaysMs: [1000, 2000], maxAttempts: 4, attemptTimeoutMs: 0 }),
    ).toBe(1000 + 2000 + 2000);
  });

  it('is the attempts alone when there is one attempt or no delay', () => {
    expect(retryWindowMs({ retryDelaysMs: [5000], maxAttempts: 1, attemptTimeoutMs: 10 })).toBe(10);
    expect(retryWindowMs({ retryDelaysMs: [], maxAttempts: 3, attemptTimeoutMs: 10 })).toBe(30);
  });
});

describe('DEFAULT_GAP_WINDOW_MS', () => {
  it("leaves at least five minutes past the spec's retry window for queues", () => {
    expect(DEFAULT_GAP_WINDOW_MS - retryWindowMs(SPEC_RETRY_POLICY)).toBeGreaterThanOrEqual(
      5 * MINUTE,
    );
  });
});

describe('gapCheckIntervalMs', () => {
  it('checks ten times per window, at most every minute and at least every 100 ms', () => {
    expect(gapCheckIntervalMs(5_000)).toBe(500);
    expect(gapCheckIntervalMs(DEFAULT_GAP_WINDOW_MS)).toBe(60_000);
    expect(gapCheckIntervalMs(200)).toBe(100);
  });
});
