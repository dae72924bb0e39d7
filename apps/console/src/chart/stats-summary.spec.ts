import { attemptsSummary, latencySummary } from './stats-summary';

const bucket = (
  hour: string,
  succeeded: number,
  failed: number,
  p50: number | null,
  p99: number | null,
) => ({
  hour,
  succeeded,
  failed,
  latency_p50_ms: p50,
  latency_p99_ms: p99,
});

describe('chart descriptions', () => {
  const buckets = [
    bucket('2026-03-01T13:00:00Z', 10, 0, 40, 90),
    bucket('2026-03-01T14:00:00Z', 18, 2, 55, 1500),
    bucket('2026-03-01T15:00:00Z', 0, 0, null, null),
  ];

  it('sums up the attempts', () => {
    expect(attemptsSummary(buckets, '24 hours')).toBe(
      'In the last 24 hours: 30 attempts, 28 succeeded and 2 failed (93.3% success). The busiest hour was 14:00 UTC with 20 attempts.',
    );
    expect(attemptsSummary([buckets[2]], '24 hours')).toBe('No attempts in the last 24 hours.');
  });

  it('sums up the latency', () => {
    expect(latencySummary(buckets, '24 hours')).toBe(
      'In the last 24 hours the hourly median latency ranged from 40 ms to 55 ms; the highest 99th percentile was 1.5 s at 14:00 UTC.',
    );
    expect(latencySummary([buckets[2]], '7 days')).toBe(
      'No latency to show: no attempts in the last 7 days.',
    );
  });
});
