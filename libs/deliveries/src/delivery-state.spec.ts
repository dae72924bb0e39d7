import { attemptedEvent, deliveryIdentity, foldDelivery } from '@svc/testing/builders';
import {
  asConcurrentAttempt,
  DELIVERY_EVENT_TYPES,
  DeliveryAttempted,
  DeliveryEvent,
} from './delivery-events';
import { applyDeliveryEvent } from './delivery-state';

const identity = deliveryIdentity();
const attempted = attemptedEvent;
const fold = foldDelivery;

describe('applyDeliveryEvent', () => {
  it('keeps a failed delivery pending until its next attempt', () => {
    expect(fold([attempted({})])).toMatchObject({
      id: 'del_1',
      status: 'pending',
      attempts: 1,
      runAttempts: 1,
      nextAttemptAt: new Date('2026-01-01T00:00:05.000Z'),
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
      completedAt: null,
      version: 1,
    });
  });

  it('ends a delivery at its first success', () => {
    const state = fold([
      attempted({}),
      attempted({
        attempt: 2,
        run_attempt: 2,
        succeeded: true,
        status_code: 200,
        error_kind: null,
        next_attempt_at: null,
        attempted_at: '2026-01-01T00:00:05.000Z',
      }),
    ]);
    expect(state).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      nextAttemptAt: null,
      completedAt: new Date('2026-01-01T00:00:05.000Z'),
    });
  });

  it('abandons, and a re-drive starts a new run of attempts', () => {
    const abandoned = fold([
      attempted({ attempt: 5, run_attempt: 5, next_attempt_at: null, abandoned: true }),
    ]);
    expect(abandoned).toMatchObject({
      status: 'abandoned',
      attempts: 5,
      runAttempts: 5,
      nextAttemptAt: null,
    });
    const redriven = applyDeliveryEvent(
      abandoned,
      {
        type: DELIVERY_EVENT_TYPES.redriven,
        data: {
          delivery_id: 'del_1',
          due_at: '2026-01-02T00:00:00.000Z',
          redriven_at: '2026-01-02T00:00:00.000Z',
        },
      },
      2,
    );
    expect(redriven).toMatchObject({
      status: 'pending',
      attempts: 5,
      runAttempts: 0,
      nextAttemptAt: new Date('2026-01-02T00:00:00.000Z'),
      completedAt: null,
      version: 2,
    });
  });

  it('keeps the number the event that started it carried, through a replay (ADR 0045)', () => {
    const numbered = fold([attempted({ sequence: 7, next_attempt_at: null, abandoned: true })]);
    expect(numbered).toMatchObject({ sequence: 7, status: 'abandoned' });
    const replayed = applyDeliveryEvent(
      numbered,
      {
        type: DELIVERY_EVENT_TYPES.replayed,
        data: {
          delivery_id: 'del_1',
          status_before: 'abandoned',
          due_at: '2026-01-02T00:00:00.000Z',
          replayed_at: '2026-01-02T00:00:00.000Z',
        },
      },
      2,
    );
    expect(replayed).toMatchObject({ sequence: 7, status: 'pending' });
    const deferred = fold([
      {
        type: DELIVERY_EVENT_TYPES.deferred,
        data: {
          ...identity,
          sequence: 3,
          due_at: '2026-01-01T00:00:01.000Z',
          reason: 'endpoint_busy',
        },
      },
    ]);
    expect(deferred).toMatchObject({ sequence: 3 });
    expect(fold([attempted({})])).toMatchObject({ sequence: null });
  });

  it('starts a deferred delivery with no attempt yet', () => {
    const state = fold([
      {
        type: DELIVERY_EVENT_TYPES.deferred,
        data: { ...identity, due_at: '2026-01-01T00:00:01.000Z', reason: 'endpoint_busy' },
      },
    ]);
    expect(state).toMatchObject({
      status: 'pending',
      attempts: 0,
      runAttempts: 0,
      nextAttemptAt: new Date('2026-01-01T00:00:01.000Z'),
    });
  });

  it('starts a test delivery with no attempt yet, due at once (ADR 0029)', () => {
    const state = fold([
      {
        type: DELIVERY_EVENT_TYPES.scheduled,
        data: {
          ...identity,
          event_type: 'webhook.test',
          due_at: '2026-01-01T00:00:00.000Z',
          reason: 'test_requested',
        },
      },
    ]);
    expect(state).toMatchObject({
      id: 'del_1',
      eventType: 'webhook.test',
      status: 'pending',
      attempts: 0,
      runAttempts: 0,
      nextAttemptAt: new Date('2026-01-01T00:00:00.000Z'),
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
      completedAt: null,
      version: 1,
    });
  });

  it.each([
    ['succeeded', attempted({ succeeded: true, status_code: 200, next_attempt_at: null })],
    [
      'abandoned',
      attempted({ attempt: 5, run_attempt: 5, next_attempt_at: null, abandoned: true }),
    ],
    ['pending', attempted({ attempt: 2, run_attempt: 2 })],
  ] as const)(
    'replays a %s delivery: pending again, a new run due at once, attempts still counted (ADR 0029)',
    (statusBefore, last) => {
      const before = fold([last]);
      expect(before?.status).toBe(statusBefore);

      const replayed = applyDeliveryEvent(
        before,
        {
          type: DELIVERY_EVENT_TYPES.replayed,
          data: {
            delivery_id: 'del_1',
            status_before: statusBefore,
            due_at: '2026-01-02T00:00:00.000Z',
            replayed_at: '2026-01-02T00:00:00.000Z',
          },
        },
        2,
      );

      expect(replayed).toMatchObject({
        status: 'pending',
        attempts: last.data.attempt,
        runAttempts: 0,
        nextAttemptAt: new Date('2026-01-02T00:00:00.000Z'),
        completedAt: null,
        version: 2,
      });
    },
  );

  it('cancels a pending delivery', () => {
    const state = fold([
      attempted({}),
      {
        type: DELIVERY_EVENT_TYPES.cancelled,
        data: {
          delivery_id: 'del_1',
          reason: 'endpoint_deleted',
          cancelled_at: '2026-01-01T00:00:03.000Z',
        },
      },
    ]);
    expect(state).toMatchObject({ status: 'cancelled', nextAttemptAt: null });
  });

  describe('an attempt that raced the delivery (recorded in the delivery that won)', () => {
    const raced = (overrides: Partial<DeliveryAttempted>): DeliveryEvent => {
      const event = attempted(overrides);
      return {
        type: DELIVERY_EVENT_TYPES.attempted,
        data: asConcurrentAttempt({ ...event.data, delivery_id: 'del_2' }, { id: 'del_1' }),
      };
    };

    it('is addressed to the winner, names the id it was sent under, and schedules nothing', () => {
      const event = raced({ next_attempt_at: '2026-01-01T00:00:05.000Z', abandoned: true });

      expect(event.data).toMatchObject({
        delivery_id: 'del_1',
        concurrent_with: 'del_2',
        next_attempt_at: null,
        abandoned: false,
      });
    });

    it('never reopens a delivery that succeeded, when it failed', () => {
      const state = fold([
        attempted({ succeeded: true, status_code: 200, next_attempt_at: null }),
        raced({ succeeded: false, attempted_at: '2026-01-01T00:00:01.000Z' }),
      ]);

      expect(state).toMatchObject({
        status: 'succeeded',
        nextAttemptAt: null,
        completedAt: new Date('2026-01-01T00:00:00.000Z'),
        lastAttemptAt: new Date('2026-01-01T00:00:01.000Z'),
        version: 2,
      });
    });

    it('leaves a pending delivery on its schedule when it failed', () => {
      const state = fold([attempted({}), raced({ succeeded: false })]);

      expect(state).toMatchObject({
        status: 'pending',
        nextAttemptAt: new Date('2026-01-01T00:00:05.000Z'),
      });
    });

    it('completes a pending delivery when it succeeded', () => {
      const state = fold([
        attempted({}),
        raced({ succeeded: true, status_code: 200, attempted_at: '2026-01-01T00:00:02.000Z' }),
      ]);

      expect(state).toMatchObject({
        status: 'succeeded',
        nextAttemptAt: null,
        completedAt: new Date('2026-01-01T00:00:02.000Z'),
      });
    });

    it('completes an abandoned delivery when it succeeded, so that no re-drive sends it again', () => {
      const state = fold([
        attempted({ abandoned: true, next_attempt_at: null }),
        raced({ succeeded: true, status_code: 200 }),
      ]);

      expect(state?.status).toBe('succeeded');
    });
  });
});
