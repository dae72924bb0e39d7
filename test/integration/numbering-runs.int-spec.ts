import { DeliveryNumbers, NewEventClaim, NewEventRequest, NumberingRuns } from '@svc/deliveries';
import { payloadOf, suiteDatabase, uniqueIds } from './delivery-tables';

/**
 * Several new events numbered in one statement (ADR 0050) against a real PostgreSQL: in the order
 * given, gap-free per endpoint, a stored event answered and left alone, racing runs holding the
 * same events in other orders claiming each once without waiting for each other for ever, and
 * NumberingRuns sending what piles up behind a statement as one, in the order asked.
 */
describe('numbering runs', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let numbers: DeliveryNumbers;
  const { endpoints, eventId } = uniqueIds('r');

  beforeAll(async () => {
    db = await suiteDatabase(10);
    numbers = new DeliveryNumbers(db.dataSource);
  });
  afterAll(() => db.close());
  const requestOf = (
    endpointIds: string[],
    tenantId = 'ten_r',
    ordered: NewEventRequest['ordered'] = [],
  ): NewEventRequest => ({ payload: payloadOf(tenantId, eventId()), endpointIds, ordered });

  const numberOf = (claim: NewEventClaim | null, endpointId: string) =>
    claim?.kind === 'claimed' ? claim.numbers.get(endpointId) : undefined;

  async function counter(endpointId: string): Promise<number> {
    const [row]: { last: string }[] = await db.dataSource.query(
      'SELECT last FROM endpoint_sequences WHERE endpoint_id = $1',
      [endpointId],
    );
    return Number(row?.last ?? 0);
  }

  it('numbers a run in its order, each endpoint from where its counter stood', async () => {
    const [a, b] = endpoints(2);
    await numbers.claimForNewEvent(payloadOf('ten_r', eventId()), [a]);
    const run = [requestOf([a, b]), requestOf([b]), requestOf([a]), requestOf([b, a])];
    const claims = await numbers.claimForNewEvents(run);
    expect(claims.map((claim) => numberOf(claim, a))).toEqual([2, undefined, 3, 4]);
    expect(claims.map((claim) => numberOf(claim, b))).toEqual([1, 2, undefined, 3]);
    expect(await counter(a)).toBe(4);
    expect(await counter(b)).toBe(3);
    const stored: { event_id: string }[] = await db.dataSource.query(
      'SELECT event_id FROM inbound_events WHERE event_id = ANY($1)',
      [run.map((request) => request.payload.eventId)],
    );
    expect(stored).toHaveLength(4);
  });

  it('answers a stored event its body, numbers the others, and leaves no gap', async () => {
    const [a] = endpoints(1);
    const old = payloadOf('ten_r', eventId(), '{"old":true}');
    await numbers.claimForNewEvent(old, [a]);
    const claims = await numbers.claimForNewEvents([
      requestOf([a]),
      { payload: { ...old, body: '{"copy":true}' }, endpointIds: [a], ordered: [] },
      requestOf([a]),
      requestOf([]),
    ]);
    expect(claims[1]).toEqual({ kind: 'stored', storedBody: '{"old":true}' });
    expect(claims.map((claim) => numberOf(claim, a))).toEqual([2, undefined, 3, undefined]);
    expect(claims[3]).toEqual({ kind: 'claimed', numbers: new Map() });
    expect(await counter(a)).toBe(3);
  });

  it('keeps one tenant apart from another naming the same event id', async () => {
    const [a] = endpoints(1);
    const id = eventId();
    const claims = await numbers.claimForNewEvents([
      { payload: payloadOf('ten_r1', id), endpointIds: [a], ordered: [] },
      { payload: payloadOf('ten_r2', id), endpointIds: [a], ordered: [] },
    ]);
    expect(claims.map((claim) => numberOf(claim, a))).toEqual([1, 2]);
  });

  it("places an ordered endpoint's deliveries in its queue with their numbers", async () => {
    const [fifo, other] = endpoints(2);
    const run = [1, 2, 3].map((index) =>
      requestOf([fifo, other], 'ten_r', [{ endpointId: fifo, deliveryId: `del_${fifo}_${index}` }]),
    );
    await numbers.claimForNewEvents(run);
    const places: { delivery_id: string; sequence: string; due_at: Date | string }[] =
      await db.dataSource.query(
        'SELECT delivery_id, sequence, due_at::text FROM delivery_schedule WHERE endpoint_id = $1 AND ordered ORDER BY sequence',
        [fifo],
      );
    expect(
      places.map((place) => [place.delivery_id, Number(place.sequence), place.due_at]),
    ).toEqual(run.map((request, index) => [request.ordered[0].deliveryId, index + 1, 'infinity']));
  });

  it('gives runs racing with the same events in other orders one number per event, and finishes', async () => {
    const shared = endpoints(3);
    const events = Array.from({ length: 12 }, () => requestOf(shared));
    const orders = [events, [...events].reverse(), [...events.slice(6), ...events.slice(0, 6)]];
    const answers = await Promise.all(orders.map((run) => numbers.claimForNewEvents(run)));
    for (const request of events) {
      const claimed = orders
        .map((run, index) => answers[index][run.indexOf(request)])
        .filter((claim) => claim?.kind === 'claimed');
      expect(claimed).toHaveLength(1);
    }
    for (const endpointId of shared) {
      const seen = answers
        .flat()
        .map((claim) => numberOf(claim, endpointId))
        .filter((number) => number !== undefined)
        .sort((x, y) => x - y);
      expect(seen).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
      expect(await counter(endpointId)).toBe(12);
    }
  });

  describe('NumberingRuns', () => {
    it('numbers claims asked for one after another in that order, several in one statement', async () => {
      const [a] = endpoints(1);
      const statements: number[] = [];
      const counting = {
        claimForNewEvent: numbers.claimForNewEvent.bind(numbers),
        claimForNewEvents: (requests: readonly NewEventRequest[]) => {
          statements.push(requests.length);
          return numbers.claimForNewEvents(requests);
        },
      };
      const runs = new NumberingRuns(counting);
      const claims = await Promise.all(
        Array.from({ length: 40 }, () => runs.claimForNewEvent(requestOf([a]))),
      );
      expect(claims.map((claim) => numberOf(claim, a))).toEqual(
        Array.from({ length: 40 }, (_, index) => index + 1),
      );
      // The first goes alone; the 39 behind it go 16, 16 and 7.
      expect(statements).toEqual([16, 16, 7]);
    });

    it("refuses only the event PostgreSQL refuses, and numbers the run's others", async () => {
      const [a] = endpoints(1);
      const runs = new NumberingRuns(numbers);
      const refused = requestOf([a]);
      // No partition holds delivery data a century from now (ADR 0023).
      refused.payload.retentionKey = new Date('2126-01-01T00:00:00Z');
      const outcomes = await Promise.allSettled([
        runs.claimForNewEvent(requestOf([a])),
        runs.claimForNewEvent(requestOf([a])),
        runs.claimForNewEvent(refused),
        runs.claimForNewEvent(requestOf([a])),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      expect(
        outcomes.map((outcome) =>
          outcome.status === 'fulfilled' ? numberOf(outcome.value, a) : undefined,
        ),
      ).toEqual([1, 2, undefined, 3]);
    });
  });
});
