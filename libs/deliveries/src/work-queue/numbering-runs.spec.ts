import type { NewEventClaim, NewEventRequest } from './delivery-numbers';
import { NumberingRuns } from './numbering-runs';

/** A DeliveryNumbers stand-in whose statements finish when the test says so. */
class HeldNumbers {
  readonly statements: string[][] = [];
  private readonly releases: (() => void)[] = [];
  failRuns = false;
  /** Events a run answers null for (raced), and alone ones that fail. */
  readonly raced = new Set<string>();
  readonly failAlone = new Set<string>();

  claimForNewEvent(payload: NewEventRequest['payload']): Promise<NewEventClaim> {
    this.statements.push([payload.eventId]);
    return this.held(() => {
      if (this.failAlone.has(payload.eventId)) {
        throw new Error(`no partition for ${payload.eventId}`);
      }
      return { kind: 'claimed', numbers: new Map([['wh_a', 0]]) };
    });
  }

  claimForNewEvents(requests: readonly NewEventRequest[]): Promise<(NewEventClaim | null)[]> {
    this.statements.push(requests.map((request) => request.payload.eventId));
    return this.held(() => {
      if (this.failRuns) {
        throw new Error('the run failed');
      }
      return requests.map((request) =>
        this.raced.has(request.payload.eventId)
          ? null
          : { kind: 'claimed', numbers: new Map([['wh_a', 0]]) },
      );
    });
  }

  /** Lets the oldest statement under way finish. */
  release(): void {
    this.releases.shift()?.();
  }

  private held<T>(answer: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.releases.push(() => {
        try {
          resolve(answer());
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }),
    );
  }
}

const request = (eventId: string, tenantId = 'ten_a'): NewEventRequest => ({
  payload: {
    eventId,
    tenantId,
    type: 'alert.created',
    body: '{}',
    traceContext: null,
    retentionKey: new Date(0),
  },
  endpointIds: ['wh_a'],
  ordered: [],
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('NumberingRuns', () => {
  let numbers: HeldNumbers;
  let runs: NumberingRuns;

  beforeEach(() => {
    numbers = new HeldNumbers();
    runs = new NumberingRuns(numbers, 3);
  });

  it('sends a claim asked for while none is under way at once, alone', async () => {
    const claim = runs.claimForNewEvent(request('evt_1'));
    expect(numbers.statements).toEqual([['evt_1']]);
    numbers.release();
    await expect(claim).resolves.toMatchObject({ kind: 'claimed' });
  });

  it('sends the claims asked for meanwhile together, in the order asked, up to the bound', async () => {
    const claims = ['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5', 'evt_6'].map((id) =>
      runs.claimForNewEvent(request(id)),
    );
    numbers.release();
    await settle();
    expect(numbers.statements).toEqual([['evt_1'], ['evt_2', 'evt_3', 'evt_4']]);
    numbers.release();
    await settle();
    expect(numbers.statements.at(-1)).toEqual(['evt_5', 'evt_6']);
    numbers.release();
    await expect(Promise.all(claims)).resolves.toHaveLength(6);
  });

  it('never puts two copies of one event in a run', async () => {
    const claims = [
      runs.claimForNewEvent(request('evt_1')),
      runs.claimForNewEvent(request('evt_2')),
      runs.claimForNewEvent(request('evt_2')),
      runs.claimForNewEvent(request('evt_2', 'ten_b')),
    ];
    numbers.release();
    await settle();
    expect(numbers.statements[1]).toEqual(['evt_2']);
    numbers.release();
    await settle();
    expect(numbers.statements[2]).toEqual(['evt_2', 'evt_2']);
    numbers.release();
    await expect(Promise.all(claims)).resolves.toHaveLength(4);
  });

  it('claims alone what raced in a run, after the run and before the next', async () => {
    numbers.raced.add('evt_3');
    const claims = ['evt_1', 'evt_2', 'evt_3', 'evt_4'].map((id) =>
      runs.claimForNewEvent(request(id)),
    );
    numbers.release();
    await settle();
    numbers.release();
    await settle();
    expect(numbers.statements).toEqual([['evt_1'], ['evt_2', 'evt_3', 'evt_4'], ['evt_3']]);
    numbers.release();
    await expect(Promise.all(claims)).resolves.toHaveLength(4);
  });

  it('claims each alone when a run fails, so that only the event that fails alone fails', async () => {
    numbers.failRuns = true;
    numbers.failAlone.add('evt_3');
    const outcomes = Promise.allSettled(
      ['evt_1', 'evt_2', 'evt_3', 'evt_4'].map((id) => runs.claimForNewEvent(request(id))),
    );
    for (let step = 0; step < 5; step += 1) {
      numbers.release();
      await settle();
    }
    expect(numbers.statements).toEqual([
      ['evt_1'],
      ['evt_2', 'evt_3', 'evt_4'],
      ['evt_2'],
      ['evt_3'],
      ['evt_4'],
    ]);
    expect((await outcomes).map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
  });

  it('tells its observer of every statement, the events it numbered, failed ones included', async () => {
    const observed: number[] = [];
    numbers.failRuns = true;
    runs = new NumberingRuns(numbers, 3, (events, seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      observed.push(events);
    });
    const outcomes = Promise.allSettled(
      ['evt_1', 'evt_2', 'evt_3'].map((id) => runs.claimForNewEvent(request(id))),
    );
    for (let step = 0; step < 4; step += 1) {
      numbers.release();
      await settle();
    }
    await outcomes;
    expect(observed).toEqual([1, 2, 1, 1]);
  });
});
