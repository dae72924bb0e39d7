import {
  axisTicks,
  bandOf,
  linePath,
  niceCeiling,
  PlotArea,
  stackedBars,
  yOf,
} from './chart-scale';

const area: PlotArea = { width: 140, height: 120, left: 20, right: 20, top: 10, bottom: 10 };

describe('chart scaling', () => {
  it.each([
    [0, 1],
    [1, 1],
    [1.2, 2],
    [3, 5],
    [7, 10],
    [10, 10],
    [11, 20],
    [480, 500],
    [501, 1000],
    [Number.NaN, 1],
  ])('rounds %p up to the nice %p', (value, nice) => {
    expect(niceCeiling(value)).toBe(nice);
  });

  it('makes whole ticks from zero to the maximum', () => {
    expect(axisTicks(100)).toEqual([0, 50, 100]);
    expect(axisTicks(20)).toEqual([0, 5, 10, 15, 20]);
    expect(axisTicks(1)).toEqual([0, 1]);
  });

  it('maps values onto the plot, clamped', () => {
    expect(yOf(0, 10, area)).toBe(110);
    expect(yOf(10, 10, area)).toBe(10);
    expect(yOf(5, 10, area)).toBe(60);
    expect(yOf(20, 10, area)).toBe(10);
    expect(yOf(3, 0, area)).toBe(110);
  });

  it('splits the width into slots with gaps', () => {
    expect(bandOf(0, 4, area)).toEqual({ x: 22, width: 21 });
    expect(bandOf(3, 4, area)).toEqual({ x: 97, width: 21 });
  });

  it('stacks failed attempts on top of succeeded ones', () => {
    const [bar] = stackedBars([{ succeeded: 5, failed: 5 }], 10, area);
    expect(bar.succeeded).toEqual({ y: 60, height: 50 });
    expect(bar.failed).toEqual({ y: 10, height: 50 });
  });

  it('draws a line that breaks where an hour had no attempts', () => {
    expect(linePath([10, 5, null, 0], 10, area)).toBe('M32.5,10L57.5,60 M107.5,110');
    expect(linePath([null, null], 10, area)).toBe('');
  });
});
