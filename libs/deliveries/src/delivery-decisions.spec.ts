import { deliveryIdentity, deliveryState } from '@svc/testing/builders';
import {
  AttemptPolicy,
  decideAttempted,
  decideCancelled,
  decideDeferred,
  decideRacedAttempt,
  decideRedriven,
  MAX_RETRY_AFTER_MS,
} from './delivery-decisions';
import { DeliveryIdentity } from './delivery-events';
import { AttemptResult, resultOfStatus } from './rules/attempt-result';

const identity: DeliveryIdentity = deliveryIdentity();
const now = new Date('2026-01-01T00:00:00.000Z');
const policy: AttemptPolicy = {
  retryScheduleMs: [5000, 30_000, 300_000, 1_800_000],
  maxAttempts: 5,
};
const failed: AttemptResult = resultOfStatus(500, 12, 'oops');
const succeeded: AttemptResult = resultOfStatus(200, 7, 'ok');

const delivery = deliveryState;

describe('decideAttempted', () => {
  it('given no delivery yet, when the first attempt succeeds, then it is attempt 1 and the delivery succeeded', () => {
    const { event, conclusion } = decideAttempted(
      { identity, result: succeeded, policy },
      null,
      now,
    );

    expect(conclusion).toBe('succeeded');
    expect(event).toEqual({
      type: 'delivery.attempted',
      data: {
        ...identity,
        attempt: 1,
        run_attempt: 1,
        succeeded: true,
        status_code: 200,
        error_kind: null,
        error_message: null,
        latency_ms: 7,
        response_excerpt: 'ok',
        attempted_at: '2026-01-01T00:00:00.000Z',
        next_attempt_at: null,
        abandoned: false,
      },
    });
  });

  it('given no delivery yet, when the first attempt fails, then a retry is due after the first delay', () => {
    const { event, conclusion } = decideAttempted({ identity, result: failed, policy }, null, now);

    expect(conclusion).toBe('retrying');
    expect(event.data).toMatchObject({
      attempt: 1,
      run_attempt: 1,
      succeeded: false,
      status_code: 500,
      error_kind: 'http_status',
      next_attempt_at: '2026-01-01T00:00:05.000Z',
      abandoned: false,
    });
  });

  it('given three failed attempts, when the fourth fails, then the fourth delay of the schedule applies', () => {
    const { event, conclusion } = decideAttempted(
      { identity, result: failed, policy },
      delivery({ attempts: 3, runAttempts: 3 }),
      now,
    );

    expect(conclusion).toBe('retrying');
    expect(event.data).toMatchObject({
      attempt: 4,
      run_attempt: 4,
      next_attempt_at: '2026-01-01T00:30:00.000Z',
    });
  });

  it('given four failed attempts, when the fifth (the last) fails, then the delivery is abandoned', () => {
    const { event, conclusion } = decideAttempted(
      { identity, result: failed, policy },
      delivery({ attempts: 4, runAttempts: 4 }),
      now,
    );

    expect(conclusion).toBe('abandoned');
    expect(event.data).toMatchObject({
      attempt: 5,
      run_attempt: 5,
      next_attempt_at: null,
      abandoned: true,
    });
  });

  it('given a re-driven delivery (five attempts, a new run), when its attempt fails, then it counts on and the run starts over', () => {
    const { event, conclusion } = decideAttempted(
      { identity, result: failed, policy },
      delivery({ attempts: 5, runAttempts: 0 }),
      now,
    );

    expect(conclusion).toBe('retrying');
    expect(event.data).toMatchObject({
      attempt: 6,
      run_attempt: 1,
      next_attempt_at: '2026-01-01T00:00:05.000Z',
    });
  });

  it('given a schedule shorter than the attempts, when a late attempt fails, then the last delay repeats', () => {
    const { event } = decideAttempted(
      { identity, result: failed, policy: { retryScheduleMs: [1000], maxAttempts: 5 } },
      delivery({ attempts: 3, runAttempts: 3 }),
      now,
    );

    expect(event.data.next_attempt_at).toBe('2026-01-01T00:00:01.000Z');
  });

  it('given a pending delivery, when the attempt succeeds, then nothing more is scheduled', () => {
    const { event, conclusion } = decideAttempted(
      { identity, result: succeeded, policy },
      delivery({ attempts: 4, runAttempts: 4 }),
      now,
    );

    expect(conclusion).toBe('succeeded');
    expect(event.data).toMatchObject({ attempt: 5, next_attempt_at: null, abandoned: false });
  });
});

describe('decideAttempted with Retry-After (429, 503)', () => {
  const busy = (retryAfterMs: number) => ({ ...resultOfStatus(503, 4, null), retryAfterMs });

  it("given a first failure asking for 60 s, when decided, then the retry waits 60 s, not the schedule's 5 s", () => {
    const { event } = decideAttempted({ identity, result: busy(60_000), policy }, null, now);
    expect(event.data.next_attempt_at).toBe(new Date(now.getTime() + 60_000).toISOString());
  });

  it('given a Retry-After shorter than the schedule, when decided, then the schedule stands', () => {
    const { event } = decideAttempted({ identity, result: busy(1000), policy }, null, now);
    expect(event.data.next_attempt_at).toBe(new Date(now.getTime() + 5000).toISOString());
  });

  it('given a Retry-After of a day, when decided, then it is cut to MAX_RETRY_AFTER_MS', () => {
    const { event } = decideAttempted({ identity, result: busy(86_400_000), policy }, null, now);
    expect(event.data.next_attempt_at).toBe(
      new Date(now.getTime() + MAX_RETRY_AFTER_MS).toISOString(),
    );
  });

  it('given the last attempt, when it asks to come back later, then the delivery is abandoned all the same', () => {
    const last = delivery({ attempts: 4, runAttempts: 4 });
    const { event, conclusion } = decideAttempted(
      { identity, result: busy(60_000), policy },
      last,
      now,
    );
    expect(conclusion).toBe('abandoned');
    expect(event.data.next_attempt_at).toBeNull();
  });
});

describe('decideDeferred', () => {
  it('given no delivery yet, when its endpoint is busy, then the first attempt is put off by the delay', () => {
    expect(decideDeferred({ identity, delayMs: 250 }, null, now)).toEqual([
      {
        type: 'delivery.deferred',
        data: { ...identity, due_at: '2026-01-01T00:00:00.250Z', reason: 'endpoint_busy' },
      },
    ]);
  });

  it('given a delivery that exists, when deferred, then nothing happens (it is already scheduled)', () => {
    expect(decideDeferred({ identity, delayMs: 250 }, delivery(), now)).toEqual([]);
  });
});

describe('decideCancelled', () => {
  it('given a pending delivery, when its endpoint is gone, then it is cancelled as endpoint_deleted', () => {
    expect(decideCancelled({ endpointFound: false, payloadFound: true }, delivery(), now)).toEqual([
      {
        type: 'delivery.cancelled',
        data: {
          delivery_id: 'del_1',
          reason: 'endpoint_deleted',
          cancelled_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('given a pending delivery, when neither endpoint nor body is found, then the endpoint decides the reason', () => {
    const [event] = decideCancelled({ endpointFound: false, payloadFound: false }, delivery(), now);

    expect(event.data.reason).toBe('endpoint_deleted');
  });

  it("given a pending delivery, when its tenant's body is not stored, then it is cancelled as payload_missing", () => {
    const [event] = decideCancelled({ endpointFound: true, payloadFound: false }, delivery(), now);

    expect(event.data.reason).toBe('payload_missing');
  });

  it('given a pending delivery, when endpoint and body are found, then nothing is cancelled', () => {
    expect(decideCancelled({ endpointFound: true, payloadFound: true }, delivery(), now)).toEqual(
      [],
    );
  });

  it('given a delivery that is no longer pending, when its endpoint is gone, then nothing is cancelled', () => {
    expect(
      decideCancelled(
        { endpointFound: false, payloadFound: true },
        delivery({ status: 'succeeded' }),
        now,
      ),
    ).toEqual([]);
  });
});

describe('decideRedriven', () => {
  const abandonedAt = new Date('2025-12-31T12:00:00.000Z');
  const abandoned = delivery({ status: 'abandoned', attempts: 5, completedAt: abandonedAt });

  it('given a delivery abandoned since the time asked, when re-driven, then a new run is due at once', () => {
    expect(decideRedriven({ abandonedSince: abandonedAt }, abandoned, now)).toEqual([
      {
        type: 'delivery.redriven',
        data: {
          delivery_id: 'del_1',
          due_at: '2026-01-01T00:00:00.000Z',
          redriven_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('given a delivery abandoned before the time asked, when re-driven, then nothing happens', () => {
    expect(
      decideRedriven({ abandonedSince: new Date('2025-12-31T13:00:00.000Z') }, abandoned, now),
    ).toEqual([]);
  });

  it.each(['pending', 'succeeded', 'cancelled'] as const)(
    'given a %s delivery, when re-driven, then nothing happens',
    (status) => {
      expect(
        decideRedriven(
          { abandonedSince: abandonedAt },
          delivery({ status, completedAt: abandonedAt }),
          now,
        ),
      ).toEqual([]);
    },
  );
});

describe('decideRacedAttempt', () => {
  it('given a delivery that won the race, when the losing attempt is recorded, then it joins the winner as concurrent and schedules nothing', () => {
    const { event: lost } = decideAttempted(
      { identity: deliveryIdentity({ delivery_id: 'del_lost' }), result: failed, policy },
      null,
      now,
    );

    const event = decideRacedAttempt({ attempt: lost.data }, delivery({ id: 'del_won' }));

    expect(event.type).toBe('delivery.attempted');
    expect(event.data).toEqual({
      ...lost.data,
      delivery_id: 'del_won',
      concurrent_with: 'del_lost',
      next_attempt_at: null,
      abandoned: false,
    });
  });

  it('given an attempt that already lost once, when it loses again, then it still names the delivery it was sent under', () => {
    const { event: lost } = decideAttempted(
      { identity: deliveryIdentity({ delivery_id: 'del_lost' }), result: succeeded, policy },
      null,
      now,
    );
    const once = decideRacedAttempt({ attempt: lost.data }, delivery({ id: 'del_a' }));

    const twice = decideRacedAttempt({ attempt: once.data }, delivery({ id: 'del_b' }));

    expect(twice.data).toMatchObject({ delivery_id: 'del_b', concurrent_with: 'del_lost' });
  });
});
