import { retryDelayAfter } from './retry-schedule';

const SPEC_SCHEDULE = [5_000, 30_000, 300_000, 1_800_000, 7_200_000];

describe('retryDelayAfter', () => {
  it('follows the spec: 5 s, 30 s, 5 min, 30 min, then abandons after the fifth attempt', () => {
    const delays = [1, 2, 3, 4, 5].map((attempt) => retryDelayAfter(attempt, SPEC_SCHEDULE, 5));
    expect(delays).toEqual([5_000, 30_000, 300_000, 1_800_000, null]);
  });

  it('uses the 2 h entry when attempts are raised to 6', () => {
    expect(retryDelayAfter(5, SPEC_SCHEDULE, 6)).toBe(7_200_000);
    expect(retryDelayAfter(6, SPEC_SCHEDULE, 6)).toBeNull();
  });

  it('repeats the last delay when the schedule is shorter than the attempts', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayAfter(attempt, [100, 200], 5))).toEqual([
      100, 200, 200, 200,
    ]);
  });

  it('abandons at once with a single attempt', () => {
    expect(retryDelayAfter(1, SPEC_SCHEDULE, 1)).toBeNull();
  });

  it('refuses attempt numbers that are not 1-based integers', () => {
    expect(() => retryDelayAfter(0, SPEC_SCHEDULE, 5)).toThrow(RangeError);
    expect(() => retryDelayAfter(1.5, SPEC_SCHEDULE, 5)).toThrow(RangeError);
  });
});
