import { FifoEndpointFacts, FifoPost, judgeFifoOrder } from './fifo-ledger';
import type { PostOutcome } from './recording-receiver';

/**
 * Made-up runs of one FIFO endpoint, `queue`: a run that keeps the promise of ADR 0045 (one POST
 * at a time, first accepted in sequence order), then runs that break it, and runs a kill -9
 * explains. Times are ms from the run's start; each POST is answered 50 ms after it arrived
 * unless said otherwise.
 */
const T0 = Date.parse('2026-11-27T10:00:00.000Z');

interface MadePost {
  sequence: number | null;
  /** Arrival, ms after T0. */
  at: number;
  /** Answered this long after arriving; null: never answered. */
  answeredAfter?: number | null;
  outcome?: PostOutcome;
  attempt?: number;
  cutOffByKill?: boolean;
}

const post = ({
  sequence,
  at,
  answeredAfter = 50,
  outcome = 'accepted',
  attempt = 1,
  cutOffByKill = false,
}: MadePost): FifoPost => ({
  endpoint: 'queue',
  eventId: sequence === null ? 'evt_test' : `evt_${sequence}`,
  attempt,
  sequence: sequence === null ? null : String(sequence),
  outcome,
  receivedAt: T0 + at,
  answeredAt: answeredAfter === null ? null : T0 + at + answeredAfter,
  senderPort: cutOffByKill ? 41000 : 42000,
  cutOffByKill,
});

const fifo = (facts: Partial<FifoEndpointFacts> = {}) =>
  new Map([['queue', { ordering: 'fifo', givenUp: new Set<number>(), ...facts }]]);

const judge = (posts: FifoPost[], facts: Partial<FifoEndpointFacts> = {}) =>
  judgeFifoOrder({ endpoints: fifo(facts), posts });

const kinds = (findings: { kind: string }[]) => findings.map((finding) => finding.kind);

describe('the ledger on FIFO endpoints', () => {
  it('finds nothing in a run sent one at a time in order, a refused head retried first', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0 }),
      post({ sequence: 2, at: 100, outcome: 'refused' }),
      post({ sequence: 2, at: 1200, attempt: 2 }),
      post({ sequence: 3, at: 1300 }),
    ]);

    expect(judgement.findings).toEqual([]);
    expect(judgement.figures.endpoints.queue).toEqual({
      posts: 4,
      cutOffByKill: 0,
      bySender: { unknown: 4 },
      accepted: 3,
      highestAccepted: 3,
      givenUp: 0,
      inFlightTogetherInCrashWindow: 0,
      resentAfterLaterInCrashWindow: 0,
    });
  });

  it('takes a POST arriving in the millisecond the one before was answered as one at a time', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0, answeredAfter: 20 }),
      post({ sequence: 2, at: 20 }),
    ]);

    expect(judgement.findings).toEqual([]);
  });

  it('finds a number first accepted after a higher one, which had passed it while open', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0 }),
      post({ sequence: 3, at: 100 }),
      post({ sequence: 2, at: 200 }),
    ]);

    expect(kinds(judgement.findings)).toEqual(['passed while open', 'accepted out of order']);
    expect(judgement.findings[1]).toMatchObject({
      endpoint: 'queue',
      sequence: 2,
      post: { sequence: 2, at: '2026-11-27T10:00:00.200Z', port: 42000 },
      afterHigher: { sequence: 3, at: '2026-11-27T10:00:00.100Z' },
    });
    expect(judgement.figures.findings['accepted out of order']).toBe(1);
  });

  it('lets the queue pass a number the log gave up on, and no other', () => {
    const run = [
      post({ sequence: 1, at: 0 }),
      post({ sequence: 2, at: 100, outcome: 'refused' }),
      post({ sequence: 3, at: 5000 }),
    ];

    expect(judge(run, { givenUp: new Set([2]) }).findings).toEqual([]);
    expect(judge(run).findings).toEqual([
      expect.objectContaining({ kind: 'passed while open', sequence: 2 }),
    ]);
  });

  it('finds a POST of a number still being tried after a higher one was accepted', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0 }),
      post({ sequence: 2, at: 100, outcome: 'refused' }),
      post({ sequence: 3, at: 200 }),
      post({ sequence: 2, at: 1200, attempt: 2, outcome: 'refused' }),
    ]);

    expect(kinds(judgement.findings)).toEqual(['passed while open', 'sent after a later number']);
  });

  it('finds two POSTs in flight at once outside a crash window', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0, answeredAfter: 300 }),
      post({ sequence: 2, at: 100 }),
    ]);

    expect(judgement.findings).toEqual([
      {
        kind: 'two in flight',
        endpoint: 'queue',
        earlier: expect.objectContaining({
          sequence: 1,
          at: '2026-11-27T10:00:00.000Z',
          answeredAt: '2026-11-27T10:00:00.300Z',
          cutOffByKill: false,
        }),
        later: expect.objectContaining({ sequence: 2, at: '2026-11-27T10:00:00.100Z' }),
      },
    ]);
  });

  it('finds a POST arriving while one is never answered, outside a crash window', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0, answeredAfter: null, outcome: 'unanswered' }),
      post({ sequence: 1, at: 6000, attempt: 2 }),
    ]);

    expect(kinds(judgement.findings)).toEqual(['two in flight']);
  });

  it('counts apart a head sent again while the POST a kill -9 cut off was still open', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0 }),
      // The killed engine's POST: the receiver saw its connection close only after the re-send.
      post({
        sequence: 2,
        at: 100,
        answeredAfter: 6500,
        outcome: 'abandoned-by-sender',
        cutOffByKill: true,
      }),
      post({ sequence: 2, at: 6200 }),
      post({ sequence: 3, at: 6700 }),
    ]);

    expect(judgement.findings).toEqual([]);
    expect(judgement.figures.endpoints.queue).toMatchObject({
      cutOffByKill: 1,
      inFlightTogetherInCrashWindow: 1,
    });
  });

  it('counts apart a duplicate of an earlier number after a later one when a kill -9 cut the first off', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0, cutOffByKill: true }),
      post({ sequence: 2, at: 100 }),
      post({ sequence: 1, at: 6000 }),
    ]);

    expect(judgement.findings).toEqual([]);
    expect(judgement.figures.endpoints.queue).toMatchObject({
      accepted: 2,
      highestAccepted: 2,
      resentAfterLaterInCrashWindow: 1,
    });
  });

  it('finds the same duplicate after a later number when no crash explains it', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0 }),
      post({ sequence: 2, at: 100 }),
      post({ sequence: 1, at: 6000 }),
    ]);

    expect(judgement.findings).toEqual([
      expect.objectContaining({
        kind: 'sent after a later number',
        sequence: 1,
        acceptedBefore: expect.objectContaining({ at: '2026-11-27T10:00:00.000Z' }),
      }),
    ]);
    expect(judgement.figures.endpoints.queue.resentAfterLaterInCrashWindow).toBe(0);
  });

  it('leaves a test event, which carries no number and bypasses the queue, out of it', () => {
    const judgement = judge([
      post({ sequence: 1, at: 0, answeredAfter: 300 }),
      post({ sequence: null, at: 100 }),
      post({ sequence: 2, at: 400 }),
    ]);

    expect(judgement.findings).toEqual([]);
  });

  it('finds an endpoint the log holds as unordered, and ignores other endpoints', () => {
    const judgement = judgeFifoOrder({
      endpoints: fifo({ ordering: 'unordered' }),
      posts: [
        post({ sequence: 1, at: 0 }),
        { ...post({ sequence: 2, at: 10, answeredAfter: 500 }), endpoint: 'elsewhere' },
        { ...post({ sequence: 1, at: 20 }), endpoint: 'elsewhere' },
      ],
    });

    expect(judgement.findings).toEqual([
      { kind: 'not fifo in the log', endpoint: 'queue', ordering: 'unordered' },
    ]);
    expect(Object.keys(judgement.figures.endpoints)).toEqual(['queue']);
  });
});
