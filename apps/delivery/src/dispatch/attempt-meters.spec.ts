import { Registry } from 'prom-client';
import { DeliveryMetrics } from '../delivery-metrics';
import { AttemptMeters } from './attempt-meters';

describe('AttemptMeters', () => {
  it('counts each attempt once in its outcome and error kind, and observes its duration', async () => {
    const registry = new Registry();
    const metrics = new DeliveryMetrics(registry);
    const meters = new AttemptMeters(metrics);
    const result = { statusCode: null, errorMessage: null, responseExcerpt: null, latencyMs: 250 };
    meters.countAttempt({ ...result, succeeded: true, statusCode: 200, errorKind: null });
    meters.countAttempt({ ...result, succeeded: false, errorKind: 'timeout' });
    meters.countAttempt({ ...result, succeeded: false, errorKind: 'timeout' });
    const attempts = (await metrics.attempts.get()).values;
    const count = (outcome: string, kind: string) =>
      attempts.find((v) => v.labels.outcome === outcome && v.labels.error_kind === kind)?.value;
    expect(count('succeeded', 'none')).toBe(1);
    expect(count('failed', 'timeout')).toBe(2);
    expect(count('failed', 'tls')).toBe(0);
    const durations = (await metrics.attemptDuration.get()).values;
    const sum = (outcome: string) =>
      durations.find((v) => v.metricName?.endsWith('_sum') && v.labels.outcome === outcome)?.value;
    expect(sum('succeeded')).toBeCloseTo(0.25);
    expect(sum('failed')).toBeCloseTo(0.5);
  });
});
