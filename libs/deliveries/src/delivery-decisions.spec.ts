import { deliveryIdentity, deliveryState } from '@svc/testing/builders';
import {
  AttemptPolicy,
  decideAttempted,
  decideCancelled,
  decideDeferred,
  decideRacedAttempt,
  decideRedriven,
  decideReplayed,
  decideTestScheduled,
  MAX_RETRY_AFTER_MS,
} from './delivery-decisions';
import { DeliveryIdentity } from './delivery-events';
import { applyDeliveryEvent } from './delivery-state';
import { AttemptResult, resultOfStatus } from './rules/attempt-result';
import { TEST_EVENT_TYPE } from './rules/test-events';

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

  it("records the delivery's number on every attempt (ADR 0045)", () => {
    const numbered = { ...identity, sequence: 12 };
    const first = decideAttempted({ identity: numbered, result: failed, policy }, null, now);
    expect(first.event.data.sequence).toBe(12);
    const state = applyDeliveryEvent(null, first.event, 1);
    const second = decideAttempted({ identity: numbered, result: succeeded, policy }, state, now);
    expect(second.event.data).toMatchObject({ sequence: 12, attempt: 2 });
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

describe('decideAttempted with 410 Gone (ADR 0027)', () => {
  it('given a first attempt, when the receiver answers 410, then the delivery is abandoned at once and the endpoint is gone', () => {
    const { event, conclusion } = decideAttempted(
      { identity, result: resultOfStatus(410, 3, null), policy },
      null,
      now,
    );
    expect(conclusion).toBe('gone');
    expect(event.data).toMatchObject({ abandoned: true, next_attempt_at: null, status_code: 410 });
  });

  it('given a 404 or a 400, when decided, then the schedule retries as for any other failure', () => {
    for (const status of [400, 404]) {
      const { conclusion } = decideAttempted(
        { identity, result: resultOfStatus(status, 3, null), policy },
        null,
        now,
      );
      expect(conclusion).toBe('retrying');
    }
  });
});

describe('decideCancelled', () => {
  it('given a pending delivery, when its endpoint was disabled by a 410, then it is cancelled as endpoint_disabled', () => {
    const [event] = decideCancelled(
      { endpointFound: true, endpointDisabled: true, payloadFound: true },
      delivery(),
      now,
    );

    expect(event.data.reason).toBe('endpoint_disabled');
  });

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

describe('test events (ADR 0029)', () => {
  const test = deliveryIdentity({ event_type: TEST_EVENT_TYPE });

  describe('decideTestScheduled', () => {
    const command = {
      deliveryId: 'del_t',
      eventId: 'evt_t',
      endpointId: 'wh_1',
      tenantId: 'ten_1',
    };

    it('given no delivery yet, when a test is asked for, then a delivery of a webhook.test event is due at once', () => {
      expect(decideTestScheduled(command, null, now)).toEqual([
        {
          type: 'delivery.scheduled',
          data: {
            delivery_id: 'del_t',
            event_id: 'evt_t',
            endpoint_id: 'wh_1',
            tenant_id: 'ten_1',
            event_type: 'webhook.test',
            due_at: '2026-01-01T00:00:00.000Z',
            reason: 'test_requested',
          },
        },
      ]);
    });

    it('given the delivery exists, when the same test is asked for again, then nothing happens', () => {
      expect(decideTestScheduled(command, delivery({ id: 'del_t' }), now)).toEqual([]);
    });
  });

  describe('decideAttempted of a test delivery', () => {
    it('given a test delivery, when its only attempt fails, then it is abandoned, never retried, and concerns no endpoint', () => {
      const decision = decideAttempted({ identity: test, result: failed, policy }, null, now);

      expect(decision.conclusion).toBe('abandoned');
      expect(decision.concernsEndpoint).toBe(false);
      expect(decision.event.data).toMatchObject({
        attempt: 1,
        abandoned: true,
        next_attempt_at: null,
        event_type: 'webhook.test',
      });
    });

    it('given a test delivery, when its receiver answers 429 with Retry-After, then it is still not retried', () => {
      const decision = decideAttempted(
        { identity: test, result: { ...resultOfStatus(429, 4, null), retryAfterMs: 1000 }, policy },
        null,
        now,
      );

      expect(decision.event.data).toMatchObject({ abandoned: true, next_attempt_at: null });
    });

    it('given a test delivery, when it succeeds, then it succeeded and still concerns no endpoint', () => {
      const decision = decideAttempted({ identity: test, result: succeeded, policy }, null, now);

      expect(decision.conclusion).toBe('succeeded');
      expect(decision.concernsEndpoint).toBe(false);
    });

    it('given a replayed test delivery, when its attempt fails, then that one attempt ends its run', () => {
      const replayed = delivery({ eventType: TEST_EVENT_TYPE, attempts: 1, runAttempts: 0 });

      const decision = decideAttempted({ identity: test, result: failed, policy }, replayed, now);

      expect(decision.event.data).toMatchObject({ attempt: 2, run_attempt: 1, abandoned: true });
    });

    it('given an event of the platform, when an attempt is decided, then it concerns its endpoint', () => {
      expect(
        decideAttempted({ identity, result: failed, policy }, null, now).concernsEndpoint,
      ).toBe(true);
    });
  });

  it('given an abandoned test delivery, when its endpoint is recovered with a re-drive, then it is not re-driven', () => {
    const abandonedTest = delivery({
      eventType: TEST_EVENT_TYPE,
      status: 'abandoned',
      completedAt: now,
    });

    expect(decideRedriven({ abandonedSince: new Date(0) }, abandonedTest, now)).toEqual([]);
  });
});

describe('decideReplayed (ADR 0029)', () => {
  it.each(['succeeded', 'abandoned', 'cancelled', 'pending'] as const)(
    'given a %s delivery, when replayed, then a new run is due at once and the status it had is kept in the event',
    (status) => {
      const state = delivery({
        status,
        attempts: 3,
        completedAt: status === 'pending' ? null : now,
      });

      expect(decideReplayed({ attemptInFlight: false }, state, now)).toEqual([
        {
          type: 'delivery.replayed',
          data: {
            delivery_id: 'del_1',
            status_before: status,
            due_at: '2026-01-01T00:00:00.000Z',
            replayed_at: '2026-01-01T00:00:00.000Z',
          },
        },
      ]);
    },
  );

  it('given a pending delivery whose attempt is in flight, when replayed, then nothing happens: that attempt is the re-send', () => {
    expect(decideReplayed({ attemptInFlight: true }, delivery(), now)).toEqual([]);
  });
});
