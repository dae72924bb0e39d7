import type { StatsBucket } from '../api/api-types';
import { formatCount, formatHour, formatLatency, formatRate } from '../format/display-format';

/**
 * The charts' descriptions in words (their SVG <desc>): what a sighted reader takes from them at a
 * glance. Pure.
 */
export function attemptsSummary(buckets: readonly StatsBucket[], windowLabel: string): string {
  const succeeded = buckets.reduce((sum, bucket) => sum + bucket.succeeded, 0);
  const failed = buckets.reduce((sum, bucket) => sum + bucket.failed, 0);
  const total = succeeded + failed;
  if (total === 0) {
    return `No attempts in the last ${windowLabel}.`;
  }
  const busiest = buckets.reduce((best, bucket) =>
    bucket.succeeded + bucket.failed > best.succeeded + best.failed ? bucket : best,
  );
  const withDay = buckets.length > 24;
  return (
    `In the last ${windowLabel}: ${formatCount(total)} attempts, ${formatCount(succeeded)} succeeded ` +
    `and ${formatCount(failed)} failed (${formatRate(succeeded / total)} success). ` +
    `The busiest hour was ${formatHour(busiest.hour, withDay)} UTC with ` +
    `${formatCount(busiest.succeeded + busiest.failed)} attempts.`
  );
}

export function latencySummary(buckets: readonly StatsBucket[], windowLabel: string): string {
  const medians = buckets
    .map((bucket) => bucket.latency_p50_ms)
    .filter((v): v is number => v !== null);
  const withP99 = buckets.filter((bucket) => bucket.latency_p99_ms !== null);
  if (medians.length === 0 || withP99.length === 0) {
    return `No latency to show: no attempts in the last ${windowLabel}.`;
  }
  const worst = withP99.reduce((best, bucket) =>
    (bucket.latency_p99_ms ?? 0) > (best.latency_p99_ms ?? 0) ? bucket : best,
  );
  return (
    `In the last ${windowLabel} the hourly median latency ranged from ` +
    `${formatLatency(Math.min(...medians))} to ${formatLatency(Math.max(...medians))}; ` +
    `the highest 99th percentile was ${formatLatency(worst.latency_p99_ms)} at ` +
    `${formatHour(worst.hour, buckets.length > 24)} UTC.`
  );
}
