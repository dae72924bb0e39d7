/**
 * Which `X-SVC-Sequence` numbers have not arrived (ADR 0045). The service numbers each endpoint's
 * deliveries 1, 2, 3… without gaps, but delivers at least once and in no guaranteed order, so a
 * number missing now is usually a delivery still being retried. Only a gap that stays open past
 * the retry window is worth raising: its delivery was abandoned (or is stuck) and needs a replay.
 *
 * Pure bookkeeping: the caller passes the time of each arrival and of each check; no timers.
 */

/** The stream of a receiver that serves one endpoint, as most do. */
export const DEFAULT_SEQUENCE_STREAM = 'default';

/**
 * Gaps tracked per stream before the lowest is given up. Memory grows with open gaps, not with
 * deliveries: a run of numbers that arrived costs one entry however long it is. A thousand gaps
 * open at once means the receiver has lost far more than any single alert could tell it.
 */
export const DEFAULT_MAX_OPEN_GAPS_PER_STREAM = 1000;

/** Numbers `first` to `last` (inclusive) of a stream, missing since `openSinceMs`. */
export interface SequenceGap {
  streamKey: string;
  first: number;
  last: number;
  /** When a higher number first arrived, which is when this gap became known. */
  openSinceMs: number;
}

/**
 * - `new`: first arrival of a number;
 * - `late`: first arrival of a number already reported missing (an abandoned delivery replayed,
 *   or a retry slower than the window);
 * - `duplicate`: seen before (at-least-once delivery, a replay), or in a gap given up: nothing
 *   to do;
 * - `before-first`: lower than the first number this tracker saw on the stream (it started late,
 *   or an old delivery was replayed): not its concern.
 */
export type SequenceArrivalKind = 'new' | 'late' | 'duplicate' | 'before-first';

export interface SequenceArrival {
  kind: SequenceArrivalKind;
  /** A gap no longer tracked because the stream reached its limit of open gaps: report it now. */
  givenUpGap?: SequenceGap;
}

export interface SequenceGapsOptions {
  /** Default {@link DEFAULT_MAX_OPEN_GAPS_PER_STREAM}. */
  maxOpenGapsPerStream?: number;
}

/** Numbers that arrived, contiguous, above the watermark; `arrivedAtMs`: the earliest of them. */
interface ArrivedRun {
  first: number;
  last: number;
  arrivedAtMs: number;
}

interface StreamState {
  /** Lower numbers are not this tracker's concern. */
  firstSeen: number;
  /** Every number from the first seen up to this one has arrived (or was given up). */
  watermark: number;
  /** Sorted, disjoint and never adjacent to each other or to the watermark: one gap below each. */
  runs: ArrivedRun[];
  /** The highest number already reported missing. */
  reportedThrough: number;
}

export class SequenceGaps {
  private readonly streams = new Map<string, StreamState>();
  private readonly maxOpenGapsPerStream: number;

  constructor(options: SequenceGapsOptions = {}) {
    this.maxOpenGapsPerStream = options.maxOpenGapsPerStream ?? DEFAULT_MAX_OPEN_GAPS_PER_STREAM;
    if (!Number.isInteger(this.maxOpenGapsPerStream) || this.maxOpenGapsPerStream < 1) {
      throw new RangeError('maxOpenGapsPerStream must be a positive integer');
    }
  }

  /** Notes that `sequence` arrived at `arrivedAtMs`. */
  record(
    sequence: number,
    arrivedAtMs: number,
    streamKey: string = DEFAULT_SEQUENCE_STREAM,
  ): SequenceArrival {
    if (!Number.isSafeInteger(sequence) || sequence < 1) {
      throw new RangeError(`a sequence number is a positive integer, not ${sequence}`);
    }
    const stream = this.streams.get(streamKey);
    if (stream === undefined) {
      this.streams.set(streamKey, {
        firstSeen: sequence,
        watermark: sequence,
        runs: [],
        reportedThrough: sequence,
      });
      return { kind: 'new' };
    }
    if (sequence <= stream.watermark) {
      return { kind: sequence < stream.firstSeen ? 'before-first' : 'duplicate' };
    }
    return this.recordAboveWatermark(stream, streamKey, sequence, arrivedAtMs);
  }

  /** Every gap open now, lowest first per stream. */
  openGaps(): SequenceGap[] {
    return [...this.streams].flatMap(([streamKey, stream]) => gapsOf(streamKey, stream));
  }

  /** The gaps open for longer than `windowMs` at `nowMs`, reported before or not. */
  overdueGaps(nowMs: number, windowMs: number): SequenceGap[] {
    return this.openGaps().filter((gap) => nowMs - gap.openSinceMs > windowMs);
  }

  /**
   * The overdue numbers not reported by an earlier call, which are reported from now on: each
   * missing number is reported once, however often this is called.
   */
  takeNewlyOverdueGaps(nowMs: number, windowMs: number): SequenceGap[] {
    const newlyOverdue: SequenceGap[] = [];
    for (const [streamKey, stream] of this.streams) {
      // A gap's openSince never falls as its numbers rise (a higher gap has fewer arrivals above
      // it), so the overdue gaps are the lowest ones and one mark per stream says what was told.
      for (const gap of gapsOf(streamKey, stream)) {
        if (nowMs - gap.openSinceMs <= windowMs) {
          break;
        }
        if (gap.last > stream.reportedThrough) {
          newlyOverdue.push({ ...gap, first: Math.max(gap.first, stream.reportedThrough + 1) });
          stream.reportedThrough = gap.last;
        }
      }
    }
    return newlyOverdue;
  }

  private recordAboveWatermark(
    stream: StreamState,
    streamKey: string,
    sequence: number,
    arrivedAtMs: number,
  ): SequenceArrival {
    const { runs } = stream;
    const index = runs.findIndex((run) => run.last >= sequence - 1);
    const run = index === -1 ? undefined : runs[index];
    if (run !== undefined && run.first <= sequence && sequence <= run.last) {
      return { kind: 'duplicate' };
    }
    const kind = sequence <= stream.reportedThrough ? 'late' : 'new';
    if (run !== undefined && run.last === sequence - 1) {
      run.last = sequence;
      run.arrivedAtMs = Math.min(run.arrivedAtMs, arrivedAtMs);
      mergeWithNext(runs, index);
    } else if (run !== undefined && run.first === sequence + 1) {
      run.first = sequence;
      run.arrivedAtMs = Math.min(run.arrivedAtMs, arrivedAtMs);
    } else {
      runs.splice(index === -1 ? runs.length : index, 0, {
        first: sequence,
        last: sequence,
        arrivedAtMs,
      });
    }
    absorbRunsAtWatermark(stream);
    const givenUpGap =
      runs.length > this.maxOpenGapsPerStream ? giveUpLowestGap(streamKey, stream) : undefined;
    return givenUpGap === undefined ? { kind } : { kind, givenUpGap };
  }
}

function mergeWithNext(runs: ArrivedRun[], index: number): void {
  const next = runs[index + 1];
  if (next !== undefined && next.first === runs[index].last + 1) {
    runs[index].last = next.last;
    runs[index].arrivedAtMs = Math.min(runs[index].arrivedAtMs, next.arrivedAtMs);
    runs.splice(index + 1, 1);
  }
}

function absorbRunsAtWatermark(stream: StreamState): void {
  const lowest = stream.runs[0];
  if (lowest !== undefined && lowest.first === stream.watermark + 1) {
    stream.watermark = lowest.last;
    stream.runs.shift();
  }
}

function giveUpLowestGap(streamKey: string, stream: StreamState): SequenceGap {
  const [lowestGap] = gapsOf(streamKey, stream);
  const lowestRun = stream.runs.shift() as ArrivedRun;
  stream.watermark = lowestRun.last;
  stream.reportedThrough = Math.max(stream.reportedThrough, lowestRun.last);
  return lowestGap;
}

function gapsOf(streamKey: string, stream: StreamState): SequenceGap[] {
  // The gap below a run became known when the first number above it arrived: the earliest
  // arrival of that run and of every run above it.
  const openSince: number[] = [];
  let earliest = Infinity;
  for (let index = stream.runs.length - 1; index >= 0; index -= 1) {
    earliest = Math.min(earliest, stream.runs[index].arrivedAtMs);
    openSince[index] = earliest;
  }
  return stream.runs.map((run, index) => ({
    streamKey,
    first: index === 0 ? stream.watermark + 1 : stream.runs[index - 1].last + 1,
    last: run.first - 1,
    openSinceMs: openSince[index],
  }));
}
