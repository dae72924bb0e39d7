import { MetricSample } from '../../bench/stats';

export { parseMetrics } from '../../bench/stats';

/** Sum over the series of `name` whose labels include every label of `where`. */
export function sumOf(
  samples: MetricSample[],
  name: string,
  where: Record<string, string> = {},
): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(where).every(([label, value]) => sample.labels[label] === value),
    )
    .reduce((total, sample) => total + sample.value, 0);
}
