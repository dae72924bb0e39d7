/**
 * The arithmetic of the endpoint's charts (attempts per hour by outcome, latency p50/p99): nice
 * axis maxima and ticks, bar rectangles and line paths in an SVG's coordinates. Pure, so that
 * the drawing component only maps numbers to elements.
 */
export interface PlotArea {
  /** The SVG's viewBox size. */
  width: number;
  height: number;
  /** Room for the axes' labels. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The smallest 1, 2 or 5 times a power of ten at or above `value` (at least 1). */
export function niceCeiling(value: number): number {
  if (!Number.isFinite(value) || value <= 1) {
    return 1;
  }
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= value) {
      return step * power;
    }
  }
  return 10 * power;
}

/** Evenly spaced ticks from 0 to `max` (a nice ceiling), at most `count` intervals, whole steps. */
export function axisTicks(max: number, count = 4): number[] {
  const step = Math.max(1, niceCeiling(max / count));
  const ticks: number[] = [];
  for (let tick = 0; tick <= max + step / 1000; tick += step) {
    ticks.push(tick);
  }
  return ticks;
}

/** Y coordinate of a value on a 0..max axis (max at the top of the plot). */
export function yOf(value: number, max: number, area: PlotArea): number {
  const plotHeight = area.height - area.top - area.bottom;
  const ratio = max > 0 ? Math.min(Math.max(value / max, 0), 1) : 0;
  return area.top + plotHeight * (1 - ratio);
}

/** The horizontal band of the `index`-th of `count` slots, with a gap between slots. */
export function bandOf(index: number, count: number, area: PlotArea): { x: number; width: number } {
  const plotWidth = area.width - area.left - area.right;
  const slot = plotWidth / Math.max(count, 1);
  const gap = Math.min(slot * 0.2, 4);
  return { x: area.left + index * slot + gap / 2, width: Math.max(slot - gap, 0.5) };
}

export interface StackedBar {
  x: number;
  width: number;
  /** The succeeded part at the bottom, the failed part on top of it. */
  succeeded: { y: number; height: number };
  failed: { y: number; height: number };
}

/** One bar per bucket, succeeded below failed, on a shared 0..max axis. */
export function stackedBars(
  buckets: readonly { succeeded: number; failed: number }[],
  max: number,
  area: PlotArea,
): StackedBar[] {
  const base = yOf(0, max, area);
  return buckets.map((bucket, index) => {
    const { x, width } = bandOf(index, buckets.length, area);
    const succeededTop = yOf(bucket.succeeded, max, area);
    const totalTop = yOf(bucket.succeeded + bucket.failed, max, area);
    return {
      x,
      width,
      succeeded: { y: succeededTop, height: base - succeededTop },
      failed: { y: totalTop, height: succeededTop - totalTop },
    };
  });
}

/**
 * An SVG path through the values at the centres of their slots; a null (an hour without
 * attempts) breaks the line rather than drawing it down to zero.
 */
export function linePath(values: readonly (number | null)[], max: number, area: PlotArea): string {
  let path = '';
  let drawing = false;
  values.forEach((value, index) => {
    if (value === null) {
      drawing = false;
      return;
    }
    const { x, width } = bandOf(index, values.length, area);
    const point = `${round(x + width / 2)},${round(yOf(value, max, area))}`;
    path += `${drawing ? 'L' : path ? ' M' : 'M'}${point}`;
    drawing = true;
  });
  return path;
}

const round = (value: number): number => Math.round(value * 10) / 10;
