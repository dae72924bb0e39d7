import { DEFAULT_GAP_WINDOW_MS, SequenceGap } from '@svc/webhook-receiver';
import ms from 'ms';
import { CliError } from '../cli-context';
import {
  describeOpenGapAtExit,
  describeOverdueGap,
  gapWindowMsOf,
  overdueGapRecord,
  SequenceGapReport,
} from './listen-gaps';

const gap = (first: number, last: number): SequenceGap => ({
  streamKey: 'default',
  first,
  last,
  openSinceMs: Date.parse('2026-03-04T05:06:07Z'),
});

describe('gapWindowMsOf', () => {
  it('reads a duration, and the default is the receiver library’s window', () => {
    expect(gapWindowMsOf('500ms')).toBe(500);
    expect(gapWindowMsOf(' 2h ')).toBe(7_200_000);
    expect(gapWindowMsOf(ms(DEFAULT_GAP_WINDOW_MS))).toBe(DEFAULT_GAP_WINDOW_MS);
  });

  it.each(['', '0s', '-5m', '45', 'soon', '1y'])('refuses %j as a usage error', (raw) => {
    expect(() => gapWindowMsOf(raw)).toThrow(CliError);
    try {
      gapWindowMsOf(raw);
    } catch (error) {
      expect((error as CliError).exitCode).toBe(2);
      expect((error as CliError).message).toContain('--gap-window');
    }
  });
});

describe('the gap lines', () => {
  it('say which numbers are missing, since when, what it means and where to look', () => {
    const line = describeOverdueGap(gap(4, 6), 45 * 60_000, 'wh_01');
    expect(line).toMatch(/^WARNING: X-SVC-Sequence 4 to 6 missing for over 45 minutes/);
    expect(line).toContain('since 2026-03-04T05:06:07.000Z');
    expect(line).toContain('GET /v1/deliveries?status=abandoned&endpoint_id=wh_01');
    expect(describeOverdueGap(gap(4, 4), 1000, 'wh_01')).toContain('X-SVC-Sequence 4 missing');
  });

  it('give the same facts as JSON', () => {
    expect(overdueGapRecord(gap(4, 6), 1000, 'wh_01')).toEqual({
      warning: 'sequence_gap',
      endpoint_id: 'wh_01',
      missing_from: 4,
      missing_to: 6,
      open_since: '2026-03-04T05:06:07.000Z',
      gap_window_ms: 1000,
    });
  });

  it('tell a gap still within the window at exit apart from a warning', () => {
    const line = describeOpenGapAtExit(gap(9, 9), gap(9, 9).openSinceMs + 3000);
    expect(line).toBe(
      'X-SVC-Sequence 9 still missing at exit, for 3s: within the retry window, so probably ' +
        'still being retried',
    );
  });
});

describe('SequenceGapReport', () => {
  function report(windowMs = 1000) {
    const clock = { ms: 0 };
    const printed: Record<string, unknown>[] = [];
    const gapReport = new SequenceGapReport(
      windowMs,
      (_line, record) => printed.push(record),
      () => clock.ms,
    );
    gapReport.forEndpoint('wh_01');
    const arrive = (sequence: number | undefined) =>
      gapReport.note({ sequence, receivedAt: new Date(clock.ms) });
    return { clock, printed, gapReport, arrive };
  }

  it('warns once about a number missing past the window, and says when it comes late', () => {
    const { clock, printed, gapReport, arrive } = report();
    arrive(1);
    arrive(3);
    clock.ms = 1000;
    gapReport.reportOverdueGaps();
    expect(printed).toEqual([]);

    clock.ms = 1001;
    gapReport.reportOverdueGaps();
    gapReport.reportOverdueGaps();
    expect(printed).toEqual([
      expect.objectContaining({ warning: 'sequence_gap', missing_from: 2 }),
    ]);

    arrive(2);
    expect(printed.at(-1)).toEqual({ late_sequence: 2 });
  });

  it('counts nothing for a delivery without a number (a test event)', () => {
    const { clock, printed, gapReport, arrive } = report();
    arrive(1);
    arrive(undefined);
    clock.ms = 10_000;
    gapReport.reportAtExit();
    expect(printed).toEqual([]);
  });

  it('at exit, warns about what is overdue and lists the gaps still within the window', () => {
    const { clock, printed, gapReport, arrive } = report();
    arrive(1);
    arrive(3);
    clock.ms = 5000;
    arrive(5);
    clock.ms = 5500;
    gapReport.reportAtExit();
    expect(printed).toEqual([
      expect.objectContaining({ warning: 'sequence_gap', missing_from: 2, missing_to: 2 }),
      expect.objectContaining({ open_gap: { missing_from: 4, missing_to: 4 } }),
    ]);
  });
});
