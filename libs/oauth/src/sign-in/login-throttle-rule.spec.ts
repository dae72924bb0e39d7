import { decideThrottle, recordFailure, ThrottlePolicy } from './login-throttle-rule';

const policy: ThrottlePolicy = { maxFailures: 3, windowSeconds: 60 };
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 21, 12, 0, seconds));

describe('failed sign-in throttle', () => {
  it('allows an account with no failures', () => {
    expect(decideThrottle(undefined, at(0), policy)).toEqual({ allowed: true });
  });

  it('allows tries until the limit, then refuses until the window ends', () => {
    let record = recordFailure(undefined, at(0), policy);
    record = recordFailure(record, at(10), policy);
    expect(decideThrottle(record, at(11), policy)).toEqual({ allowed: true });
    record = recordFailure(record, at(20), policy);
    expect(record).toEqual({ failures: 3, windowStartedAt: at(0) });
    expect(decideThrottle(record, at(21), policy)).toEqual({
      allowed: false,
      retryAfterSeconds: 39,
    });
    expect(decideThrottle(record, at(59), policy)).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
    });
    expect(decideThrottle(record, at(60), policy)).toEqual({ allowed: true });
  });

  it('starts a new window after the old one ends', () => {
    const old = { failures: 3, windowStartedAt: at(0) };
    expect(recordFailure(old, at(61), policy)).toEqual({ failures: 1, windowStartedAt: at(61) });
  });
});
