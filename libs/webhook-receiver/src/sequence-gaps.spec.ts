import fc from 'fast-check';
import { DEFAULT_SEQUENCE_STREAM, SequenceGap, SequenceGaps } from './sequence-gaps';

const SECOND = 1000;

/** Records each [sequence, arrivedAtMs] on the default stream, returning the kinds. */
function recordAll(gaps: SequenceGaps, arrivals: [number, number][]): string[] {
  return arrivals.map(([sequence, at]) => gaps.record(sequence, at).kind);
}

const gap = (first: number, last: number, openSinceMs: number): SequenceGap => ({
  streamKey: DEFAULT_SEQUENCE_STREAM,
  first,
  last,
  openSinceMs,
});

describe('SequenceGaps', () => {
  it('has no gap while the numbers arrive in order', () => {
    const gaps = new SequenceGaps();
    expect(
      recordAll(gaps, [
        [1, 0],
        [2, 1],
        [3, 2],
      ]),
    ).toEqual(['new', 'new', 'new']);
    expect(gaps.openGaps()).toEqual([]);
  });

  it('opens a gap when a higher number arrives, from that arrival on', () => {
    const gaps = new SequenceGaps();
    recordAll(gaps, [
      [1, 0],
      [4, 10 * SECOND],
      [5, 20 * SECOND],
    ]);
    expect(gaps.openGaps()).toEqual([gap(2, 3, 10 * SECOND)]);
  });

  it('closes a gap when its numbers arrive out of order, in any order', () => {
    const gaps = new SequenceGaps();
    recordAll(gaps, [
      [1, 0],
      [4, 1],
      [3, 2],
    ]);
    expect(gaps.openGaps()).toEqual([gap(2, 2, 1)]);
    recordAll(gaps, [[2, 3]]);
    expect(gaps.openGaps()).toEqual([]);
  });

  it('keeps when each part of a gap became known as later arrivals split it', () => {
    const gaps = new SequenceGaps();
    recordAll(gaps, [
      [1, 0],
      [9, 100],
      [5, 200],
    ]);
    // 2–4 have been missing since 9 arrived; 6–8 too, although 5 came later.
    expect(gaps.openGaps()).toEqual([gap(2, 4, 100), gap(6, 8, 100)]);
  });

  it('tolerates duplicates, which change nothing', () => {
    const gaps = new SequenceGaps();
    expect(
      recordAll(gaps, [
        [1, 0],
        [3, 1],
        [3, 2],
        [1, 3],
      ]),
    ).toEqual(['new', 'new', 'duplicate', 'duplicate']);
    expect(gaps.openGaps()).toEqual([gap(2, 2, 1)]);
  });

  it('leaves numbers below the first it saw alone (started late, or an old replay)', () => {
    const gaps = new SequenceGaps();
    expect(
      recordAll(gaps, [
        [40, 0],
        [7, 1],
        [41, 2],
      ]),
    ).toEqual(['new', 'before-first', 'new']);
    expect(gaps.openGaps()).toEqual([]);
  });

  it('keeps streams apart, the default one included', () => {
    const gaps = new SequenceGaps();
    gaps.record(1, 0);
    gaps.record(3, 5);
    gaps.record(10, 0, 'wh_other');
    gaps.record(11, 1, 'wh_other');
    expect(gaps.openGaps()).toEqual([gap(2, 2, 5)]);
    gaps.record(13, 2, 'wh_other');
    expect(gaps.openGaps()).toContainEqual({
      streamKey: 'wh_other',
      first: 12,
      last: 12,
      openSinceMs: 2,
    });
  });

  it('calls a gap overdue only once it has been open longer than the window', () => {
    const gaps = new SequenceGaps();
    recordAll(gaps, [
      [1, 0],
      [3, 1000],
    ]);
    expect(gaps.overdueGaps(1000 + 500, 500)).toEqual([]);
    expect(gaps.overdueGaps(1000 + 501, 500)).toEqual([gap(2, 2, 1000)]);
  });

  it('hands out each overdue number once, the rest of a grown gap later', () => {
    const gaps = new SequenceGaps();
    recordAll(gaps, [
      [1, 0],
      [3, 0],
    ]);
    expect(gaps.takeNewlyOverdueGaps(10, 5)).toEqual([gap(2, 2, 0)]);
    expect(gaps.takeNewlyOverdueGaps(20, 5)).toEqual([]);

    gaps.record(6, 30);
    expect(gaps.takeNewlyOverdueGaps(31, 5)).toEqual([]);
    expect(gaps.takeNewlyOverdueGaps(40, 5)).toEqual([gap(4, 5, 30)]);
    // Still open, and still counted as overdue, but already handed out.
    expect(gaps.overdueGaps(40, 5)).toEqual([gap(2, 2, 0), gap(4, 5, 30)]);
  });

  it('calls the arrival of a number already reported missing late', () => {
    const gaps = new SequenceGaps();
    recordAll(gaps, [
      [1, 0],
      [4, 0],
    ]);
    gaps.takeNewlyOverdueGaps(100, 10);
    expect(
      recordAll(gaps, [
        [2, 200],
        [2, 201],
        [3, 202],
      ]),
    ).toEqual(['late', 'duplicate', 'late']);
    expect(gaps.openGaps()).toEqual([]);
  });

  it('gives up the lowest gap beyond its limit, and says which', () => {
    const gaps = new SequenceGaps({ maxOpenGapsPerStream: 2 });
    recordAll(gaps, [
      [1, 0],
      [3, 1],
      [5, 2],
    ]);
    const arrival = gaps.record(7, 3);
    expect(arrival).toEqual({ kind: 'new', givenUpGap: gap(2, 2, 1) });
    expect(gaps.openGaps()).toEqual([gap(4, 4, 2), gap(6, 6, 3)]);
    // Given up means no longer tracked, nor handed out as overdue.
    expect(gaps.record(2, 4).kind).toBe('duplicate');
    expect(gaps.takeNewlyOverdueGaps(1000, 10).map(({ first }) => first)).toEqual([4, 6]);
  });

  it('refuses numbers that are not sequence numbers, and a limit that holds no gap', () => {
    const gaps = new SequenceGaps();
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => gaps.record(bad, 0)).toThrow(RangeError);
    }
    expect(() => new SequenceGaps({ maxOpenGapsPerStream: 0 })).toThrow(RangeError);
  });

  describe('against a model that remembers every number', () => {
    /** Arrivals of 1..n in any order, some twice, some never; times rise with arrival order. */
    const arrivalsArbitrary = fc
      .record({
        n: fc.integer({ min: 1, max: 60 }),
        seed: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 4 })), { minLength: 1, maxLength: 120 }),
      })
      .map(({ n, seed }) => seed.map(([pick, pause]) => ({ sequence: (pick % n) + 1, pause })))
      .map((picks) => {
        let at = 0;
        return picks.map(({ sequence, pause }) => {
          at += pause;
          return { sequence, at };
        });
      });

    /** The maximal runs of numbers between the first seen and the highest seen that never came. */
    function modelGaps(arrivals: { sequence: number; at: number }[]): SequenceGap[] {
      const first = arrivals[0].sequence;
      const seen = arrivals.filter(({ sequence }) => sequence >= first);
      const numbers = new Set(seen.map(({ sequence }) => sequence));
      const highest = Math.max(...numbers);
      const gaps: SequenceGap[] = [];
      for (let missing = first + 1; missing < highest; missing += 1) {
        if (numbers.has(missing)) continue;
        const previous = gaps.at(-1);
        if (previous !== undefined && previous.last === missing - 1) {
          previous.last = missing;
        } else {
          gaps.push(gap(missing, missing, 0));
        }
      }
      for (const open of gaps) {
        open.openSinceMs = Math.min(
          ...seen.filter(({ sequence }) => sequence > open.last).map(({ at }) => at),
        );
      }
      return gaps;
    }

    it('finds exactly the numbers that never came, open since the first arrival above them', () => {
      fc.assert(
        fc.property(arrivalsArbitrary, (arrivals) => {
          const gaps = new SequenceGaps();
          const kinds = arrivals.map(({ sequence, at }) => gaps.record(sequence, at).kind);

          expect(gaps.openGaps()).toEqual(modelGaps(arrivals));
          const firstArrivals = new Set<number>();
          arrivals.forEach(({ sequence }, index) => {
            const expected =
              sequence < arrivals[0].sequence
                ? 'before-first'
                : firstArrivals.has(sequence)
                  ? 'duplicate'
                  : 'new';
            firstArrivals.add(sequence);
            expect(kinds[index]).toBe(expected);
          });
        }),
      );
    });

    it('hands out every overdue number once and only numbers that are missing', () => {
      fc.assert(
        fc.property(arrivalsArbitrary, fc.integer({ min: 0, max: 10 }), (arrivals, windowMs) => {
          const gaps = new SequenceGaps();
          const handedOut: number[] = [];
          for (const { sequence, at } of arrivals) {
            gaps.record(sequence, at);
            for (const overdue of gaps.takeNewlyOverdueGaps(at, windowMs)) {
              expect(at - overdue.openSinceMs).toBeGreaterThan(windowMs);
              for (let missing = overdue.first; missing <= overdue.last; missing += 1) {
                handedOut.push(missing);
              }
            }
          }
          const end = (arrivals.at(-1)?.at ?? 0) + windowMs + 1;
          gaps.takeNewlyOverdueGaps(end, windowMs).forEach(({ first, last }) => {
            for (let missing = first; missing <= last; missing += 1) handedOut.push(missing);
          });

          expect(new Set(handedOut).size).toBe(handedOut.length);
          const stillMissing = modelGaps(arrivals).flatMap(({ first, last }) =>
            Array.from({ length: last - first + 1 }, (_, offset) => first + offset),
          );
          // Each number still missing at the end was handed out; others only if they came late.
          expect(handedOut).toEqual(expect.arrayContaining(stillMissing));
        }),
      );
    });

    it('never tracks more gaps than its limit, and only numbers that never came', () => {
      fc.assert(
        fc.property(arrivalsArbitrary, fc.integer({ min: 1, max: 4 }), (arrivals, limit) => {
          const gaps = new SequenceGaps({ maxOpenGapsPerStream: limit });
          const arrived = new Set<number>();
          for (const { sequence, at } of arrivals) {
            gaps.record(sequence, at);
            arrived.add(sequence);
            const open = gaps.openGaps();
            expect(open.length).toBeLessThanOrEqual(limit);
            for (const { first, last } of open) {
              for (let missing = first; missing <= last; missing += 1) {
                expect(arrived.has(missing)).toBe(false);
              }
            }
          }
        }),
      );
    });
  });
});
