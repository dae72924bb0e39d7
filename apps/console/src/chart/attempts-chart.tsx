import type { StatsBucket } from '../api/api-types';
import { formatCount, formatHour, formatLatency } from '../format/display-format';
import { axisTicks, linePath, niceCeiling, PlotArea, stackedBars, yOf } from './chart-scale';

const AREA: PlotArea = { width: 720, height: 220, left: 56, right: 12, top: 12, bottom: 28 };

/** Which buckets get an hour label under the axis: about six, evenly. */
function labelledIndexes(count: number): Set<number> {
  const step = Math.max(1, Math.ceil(count / 6));
  const indexes = new Set<number>();
  for (let index = 0; index < count; index += step) {
    indexes.add(index);
  }
  return indexes;
}

function Axes({
  buckets,
  max,
  format,
}: {
  buckets: StatsBucket[];
  max: number;
  format: (value: number) => string;
}) {
  const labelled = labelledIndexes(buckets.length);
  const slot = (AREA.width - AREA.left - AREA.right) / Math.max(buckets.length, 1);
  const withDay = buckets.length > 24;
  return (
    <g class="chart-axes" aria-hidden="true">
      {axisTicks(max).map((tick) => (
        <g key={tick}>
          <line
            x1={AREA.left}
            x2={AREA.width - AREA.right}
            y1={yOf(tick, max, AREA)}
            y2={yOf(tick, max, AREA)}
            class="chart-grid"
          />
          <text x={AREA.left - 6} y={yOf(tick, max, AREA) + 4} class="chart-value">
            {format(tick)}
          </text>
        </g>
      ))}
      {buckets.map((bucket, index) =>
        labelled.has(index) ? (
          <text key={bucket.hour} x={AREA.left + index * slot} y={AREA.height - 8}>
            {formatHour(bucket.hour, withDay)}
          </text>
        ) : null,
      )}
    </g>
  );
}

/**
 * Attempts per hour, succeeded below failed, drawn in SVG by hand. The picture is one image to
 * assistive technology (role="img", its title and description); the numbers are in the table
 * beside it.
 */
export function AttemptsChart({
  id,
  buckets,
  summary,
}: {
  id: string;
  buckets: StatsBucket[];
  summary: string;
}) {
  const max = niceCeiling(
    Math.max(...buckets.map((bucket) => bucket.succeeded + bucket.failed), 0),
  );
  return (
    <svg
      viewBox={`0 0 ${AREA.width} ${AREA.height}`}
      class="chart"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
    >
      <title id={`${id}-title`}>Attempts per hour by outcome</title>
      <desc id={`${id}-desc`}>{summary}</desc>
      <Axes buckets={buckets} max={max} format={formatCount} />
      {stackedBars(buckets, max, AREA).map((bar, index) => (
        <g key={buckets[index].hour}>
          {bar.succeeded.height > 0 ? (
            <rect
              class="bar-succeeded"
              x={bar.x}
              width={bar.width}
              y={bar.succeeded.y}
              height={bar.succeeded.height}
            />
          ) : null}
          {bar.failed.height > 0 ? (
            <rect
              class="bar-failed"
              x={bar.x}
              width={bar.width}
              y={bar.failed.y}
              height={bar.failed.height}
            />
          ) : null}
        </g>
      ))}
    </svg>
  );
}

/** One latency line, with a dot per hour so that an hour alone between gaps still shows. */
function LatencyLine({
  kind,
  values,
  max,
}: {
  kind: 'p50' | 'p99';
  values: (number | null)[];
  max: number;
}) {
  const slot = (AREA.width - AREA.left - AREA.right) / Math.max(values.length, 1);
  return (
    <g class={`line-${kind}`}>
      <path d={linePath(values, max, AREA)} />
      {values.map((value, index) =>
        value === null ? null : (
          <circle
            key={index}
            cx={AREA.left + (index + 0.5) * slot}
            cy={yOf(value, max, AREA)}
            r={2.5}
          />
        ),
      )}
    </g>
  );
}

/** Latency p50 and p99 per hour as two lines; an hour without attempts leaves a gap. */
export function LatencyChart({
  id,
  buckets,
  summary,
}: {
  id: string;
  buckets: StatsBucket[];
  summary: string;
}) {
  const highest = Math.max(...buckets.map((bucket) => bucket.latency_p99_ms ?? 0), 0);
  const max = niceCeiling(highest);
  return (
    <svg
      viewBox={`0 0 ${AREA.width} ${AREA.height}`}
      class="chart"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
    >
      <title id={`${id}-title`}>Latency per hour, median (p50) and 99th percentile (p99)</title>
      <desc id={`${id}-desc`}>{summary}</desc>
      <Axes buckets={buckets} max={max} format={formatLatency} />
      <LatencyLine kind="p99" values={buckets.map((bucket) => bucket.latency_p99_ms)} max={max} />
      <LatencyLine kind="p50" values={buckets.map((bucket) => bucket.latency_p50_ms)} max={max} />
    </svg>
  );
}
