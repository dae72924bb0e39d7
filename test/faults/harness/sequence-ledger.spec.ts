import type { PostOutcome } from './recording-receiver';
import {
  alternatingKinds,
  judgeSequenceNumbers,
  NumberedDelivery,
  parseSequence,
  SequenceLedgerInput,
} from './sequence-ledger';

/**
 * Made-up runs of one endpoint, `hooks`, with three events due (n = 3): a run that keeps every
 * promise of ADR 0045, then the same run broken in one way at a time.
 */
const EVENTS = ['evt_1', 'evt_2', 'evt_3'];

interface MadePost {
  event: string;
  sequence: string | null;
  attempt?: number;
  outcome?: PostOutcome;
}

const post = ({ event, sequence, attempt = 1, outcome = 'accepted' }: MadePost) => ({
  endpoint: 'hooks',
  eventId: event,
  attempt,
  sequence,
  outcome,
});

const delivery = (event: string, sequence: number | null): NumberedDelivery => ({
  deliveryId: `dlv_${event}`,
  eventId: event,
  endpoint: 'hooks',
  sequence,
});

/** Each event numbered by its place, the second refused once and accepted on its retry. */
function keptPromises(): SequenceLedgerInput {
  return {
    due: new Map([['hooks', EVENTS]]),
    posts: [
      post({ event: 'evt_1', sequence: '1' }),
      post({ event: 'evt_2', sequence: '2', outcome: 'refused' }),
      post({ event: 'evt_2', sequence: '2', attempt: 2 }),
      post({ event: 'evt_3', sequence: '3' }),
    ],
    deliveries: EVENTS.map((event, i) => delivery(event, i + 1)),
    recordedWith: EVENTS.map((event, i) => ({
      deliveryId: `dlv_${event}`,
      where: 'delivery.attempted v0',
      sequence: i + 1,
    })),
    claims: EVENTS.map((event, i) => ({ eventId: event, endpoint: 'hooks', sequence: i + 1 })),
    counters: new Map([['hooks', 3]]),
  };
}

const kinds = (findings: { kind: string }[]) => findings.map((finding) => finding.kind);

describe('the ledger on sequence numbers', () => {
  it('finds nothing in a run that kept every promise', () => {
    const judgement = judgeSequenceNumbers(keptPromises());

    expect(judgement.receiverFindings).toEqual([]);
    expect(judgement.logFindings).toEqual([]);
    expect(judgement.figures.endpoints).toEqual({
      hooks: { due: 3, highestAccepted: 3, highestLogged: 3, counter: 3 },
    });
  });

  it('finds a gap: a number of 1..n no receiver accepted, and the one past n given instead', () => {
    const run = keptPromises();
    run.posts = [
      post({ event: 'evt_1', sequence: '1' }),
      post({ event: 'evt_2', sequence: '2' }),
      post({ event: 'evt_3', sequence: '4' }),
    ];
    run.deliveries = [delivery('evt_1', 1), delivery('evt_2', 2), delivery('evt_3', 4)];

    const judgement = judgeSequenceNumbers(run);

    expect(judgement.receiverFindings).toEqual([
      { kind: 'gap', endpoint: 'hooks', sequence: 3, n: 3 },
      { kind: 'beyond n', endpoint: 'hooks', sequence: 4, n: 3, events: ['evt_3'] },
    ]);
    expect(kinds(judgement.logFindings)).toEqual(
      expect.arrayContaining(['gap in the log', 'beyond n in the log']),
    );
    expect(judgement.figures.receivers.gap).toBe(1);
  });

  it('finds a gap left by a number accepted only on a refused attempt', () => {
    const run = keptPromises();
    run.posts = run.posts.filter((made) => made.eventId !== 'evt_2' || made.attempt === 1);

    expect(judgeSequenceNumbers(run).receiverFindings).toEqual([
      { kind: 'gap', endpoint: 'hooks', sequence: 2, n: 3 },
    ]);
  });

  it('finds a number used by two events, at the receiver and in the log', () => {
    const run = keptPromises();
    run.posts = [
      post({ event: 'evt_1', sequence: '1' }),
      post({ event: 'evt_2', sequence: '2' }),
      post({ event: 'evt_3', sequence: '2' }),
    ];
    run.deliveries = [delivery('evt_1', 1), delivery('evt_2', 2), delivery('evt_3', 2)];

    const judgement = judgeSequenceNumbers(run);

    expect(judgement.receiverFindings).toEqual([
      { kind: 'shared by events', endpoint: 'hooks', sequence: 2, events: ['evt_2', 'evt_3'] },
      { kind: 'gap', endpoint: 'hooks', sequence: 3, n: 3 },
    ]);
    expect(judgement.logFindings).toEqual(
      expect.arrayContaining([
        {
          kind: 'shared in the log',
          endpoint: 'hooks',
          sequence: 2,
          deliveries: [
            { delivery: 'dlv_evt_2', event: 'evt_2' },
            { delivery: 'dlv_evt_3', event: 'evt_3' },
          ],
        },
        { kind: 'gap in the log', endpoint: 'hooks', sequence: 3, n: 3 },
      ]),
    );
  });

  it('finds a number that changed between attempts of one event', () => {
    const run = keptPromises();
    run.posts = [
      post({ event: 'evt_1', sequence: '1' }),
      post({ event: 'evt_2', sequence: '2', outcome: 'refused' }),
      post({ event: 'evt_2', sequence: '3', attempt: 2 }),
      post({ event: 'evt_3', sequence: '3' }),
    ];

    const judgement = judgeSequenceNumbers(run);

    expect(judgement.receiverFindings).toEqual([
      {
        kind: 'changed between attempts',
        endpoint: 'hooks',
        event: 'evt_2',
        attempts: [
          { attempt: 1, outcome: 'refused', sequence: 2 },
          { attempt: 2, outcome: 'accepted', sequence: 3 },
        ],
      },
      { kind: 'shared by events', endpoint: 'hooks', sequence: 3, events: ['evt_2', 'evt_3'] },
      { kind: 'gap', endpoint: 'hooks', sequence: 2, n: 3 },
    ]);
  });

  it('finds a POST due to the endpoint without a number, but not a test event without one', () => {
    const run = keptPromises();
    run.posts = [
      ...run.posts.filter((made) => made.eventId !== 'evt_3'),
      post({ event: 'evt_3', sequence: null }),
      post({ event: 'evt_3', sequence: '03', attempt: 2 }),
      post({ event: 'evt_test', sequence: null }),
    ];

    expect(kinds(judgeSequenceNumbers(run).receiverFindings)).toEqual([
      'without a number',
      'without a number',
      'gap',
    ]);
  });

  it('finds a log that numbers a pair otherwise than its receiver saw', () => {
    const run = keptPromises();
    run.deliveries = [delivery('evt_1', 2), delivery('evt_2', 1), delivery('evt_3', 3)];
    run.claims = [
      { eventId: 'evt_1', endpoint: 'hooks', sequence: 2 },
      { eventId: 'evt_2', endpoint: 'hooks', sequence: 1 },
      { eventId: 'evt_3', endpoint: 'hooks', sequence: 3 },
    ];
    run.recordedWith = [];

    const judgement = judgeSequenceNumbers(run);

    expect(judgement.receiverFindings).toEqual([]);
    expect(judgement.logFindings).toEqual([
      {
        kind: 'differs from the receiver',
        endpoint: 'hooks',
        event: 'evt_1',
        delivery: 'dlv_evt_1',
        log: 2,
        receiver: 1,
      },
      {
        kind: 'differs from the receiver',
        endpoint: 'hooks',
        event: 'evt_2',
        delivery: 'dlv_evt_2',
        log: 1,
        receiver: 2,
      },
    ]);
  });

  it('finds an event or attempt row of a delivery carrying another number than its row', () => {
    const run = keptPromises();
    run.recordedWith = [
      ...run.recordedWith,
      { deliveryId: 'dlv_evt_2', where: 'delivery.attempted v1', sequence: null },
      { deliveryId: 'dlv_evt_2', where: 'delivery_attempts #2', sequence: 3 },
    ];

    expect(judgeSequenceNumbers(run).logFindings).toEqual([
      {
        kind: 'recorded with another number',
        endpoint: 'hooks',
        delivery: 'dlv_evt_2',
        where: 'delivery.attempted v1',
        sequence: null,
        row: 2,
      },
      {
        kind: 'recorded with another number',
        endpoint: 'hooks',
        delivery: 'dlv_evt_2',
        where: 'delivery_attempts #2',
        sequence: 3,
        row: 2,
      },
    ]);
  });

  it('finds a claim twice over, a delivery without its claim and a counter past n', () => {
    const run = keptPromises();
    run.claims = [
      { eventId: 'evt_1', endpoint: 'hooks', sequence: 1 },
      { eventId: 'evt_1', endpoint: 'hooks', sequence: 4 },
      { eventId: 'evt_2', endpoint: 'hooks', sequence: 2 },
    ];
    run.counters = new Map([['hooks', 4]]);

    expect(judgeSequenceNumbers(run).logFindings).toEqual([
      {
        kind: 'claim differs from the delivery',
        endpoint: 'hooks',
        event: 'evt_1',
        claims: [1, 4],
        delivery: 1,
      },
      {
        kind: 'claim differs from the delivery',
        endpoint: 'hooks',
        event: 'evt_3',
        claims: [],
        delivery: 3,
      },
      { kind: 'counter is not n', endpoint: 'hooks', counter: 4, n: 3 },
    ]);
  });

  it('reads only a positive decimal integer as a number', () => {
    expect(['7', '120', '0', '-1', '07', '1.5', ' 7', '', null].map(parseSequence)).toEqual([
      7,
      120,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('shows the first finding of every kind before the second of any', () => {
    const found = [
      { kind: 'gap', endpoint: 'hooks', sequence: 1 },
      { kind: 'gap', endpoint: 'hooks', sequence: 2 },
      { kind: 'gap', endpoint: 'hooks', sequence: 3 },
      { kind: 'beyond n', endpoint: 'hooks', sequence: 9 },
    ];

    expect(alternatingKinds(found).map((finding) => finding.sequence)).toEqual([1, 9, 2, 3]);
  });
});
