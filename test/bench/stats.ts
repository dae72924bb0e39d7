/** The q-quantile (0..1) of ascending values, nearest rank; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) {
    return NaN;
  }
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/** One sample of a Prometheus text exposition. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the Prometheus text format (enough of it for prom-client's output). */
export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || line.startsWith('#')) {
      continue;
    }
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[key] = value;
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** Two scrapes of the same process: the increase of counters and histograms between them. */
export class MetricsDelta {
  constructor(
    private readonly before: MetricSample[],
    private readonly after: MetricSample[],
  ) {}

  /** Sum over the series of `name` whose labels include `where`. */
  increase(name: string, where: Record<string, string> = {}): number {
    return sum(this.after, name, where) - sum(this.before, name, where);
  }

  /** Latest value (gauges) summed over matching series. */
  latest(name: string, where: Record<string, string> = {}): number {
    return sum(this.after, name, where);
  }

  /** Quantile of a histogram's increase, interpolated within its bucket as PromQL does. */
  histogramQuantile(name: string, q: number): number {
    const buckets = new Map<number, number>();
    const collect = (samples: MetricSample[], sign: number) => {
      for (const sample of samples) {
        if (sample.name === `${name}_bucket`) {
          const le = sample.labels.le === '+Inf' ? Infinity : Number(sample.labels.le);
          buckets.set(le, (buckets.get(le) ?? 0) + sign * sample.value);
        }
      }
    };
    collect(this.after, 1);
    collect(this.before, -1);
    const ordered = [...buckets.entries()].sort(([a], [b]) => a - b);
    const total = ordered.length > 0 ? ordered[ordered.length - 1][1] : 0;
    if (total <= 0) {
      return NaN;
    }
    const rank = q * total;
    let lowerBound = 0;
    let lowerCount = 0;
    for (const [le, cumulative] of ordered) {
      if (cumulative >= rank) {
        if (le === Infinity) {
          return lowerBound;
        }
        const inBucket = cumulative - lowerCount;
        return inBucket <= 0
          ? le
          : lowerBound + ((le - lowerBound) * (rank - lowerCount)) / inBucket;
      }
      lowerBound = le;
      lowerCount = cumulative;
    }
    return lowerBound;
  }

  /** Increase of a histogram's _sum divided by that of its _count. */
  histogramMean(name: string): number {
    const count = this.increase(`${name}_count`);
    return count > 0 ? this.increase(`${name}_sum`) / count : NaN;
  }
}

function sum(samples: MetricSample[], name: string, where: Record<string, string>): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(where).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((total, sample) => total + sample.value, 0);
}
