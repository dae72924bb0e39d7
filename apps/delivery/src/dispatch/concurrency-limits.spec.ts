import { ConcurrencyLimits } from './concurrency-limits';
import { Admission, AttemptAdmission, RateLimitedEndpoint } from './endpoint-rate-limiter';

const unlimited = (id: string): RateLimitedEndpoint => ({ id, rateLimitPerSecond: null });

describe('ConcurrencyLimits', () => {
  it('refuses an endpoint past its own bound without affecting others', () => {
    const limits = new ConcurrencyLimits(10, 2);
    expect(limits.tryReserve('slow')).toBe(true);
    expect(limits.tryReserve('slow')).toBe(true);
    expect(limits.tryReserve('slow')).toBe(false);
    expect(limits.tryReserve('healthy')).toBe(true);
  });

  it('names the endpoints with every slot taken, and only while they are', () => {
    const limits = new ConcurrencyLimits(10, 2);
    limits.tryReserve('wh_full');
    limits.tryReserve('wh_full');
    limits.tryReserve('wh_half');
    expect(limits.fullEndpoints()).toEqual(['wh_full']);
    limits.release('wh_full');
    expect(limits.fullEndpoints()).toEqual([]);
  });

  it('frees an endpoint slot on release', () => {
    const limits = new ConcurrencyLimits(10, 1);
    expect(limits.tryReserve('a')).toBe(true);
    limits.release('a');
    expect(limits.tryReserve('a')).toBe(true);
  });

  it('makes the global bound wait, in order, and hands slots over on release', async () => {
    const limits = new ConcurrencyLimits(1, 10);
    limits.tryReserve('a');
    await limits.acquireGlobal();
    const order: string[] = [];
    limits.tryReserve('b');
    const second = limits.acquireGlobal().then(() => order.push('b'));
    limits.tryReserve('c');
    const third = limits.acquireGlobal().then(() => order.push('c'));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(limits.inFlight).toBe(1);
    limits.release('a');
    await second;
    expect(order).toEqual(['b']);
    limits.release('b');
    await third;
    expect(order).toEqual(['b', 'c']);
    limits.release('c');
    expect(limits.inFlight).toBe(0);
  });

  describe('reserve', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('hands a released slot to the first waiter instead of freeing it', async () => {
      const limits = new ConcurrencyLimits(10, 1);
      expect(await limits.reserve('busy', 250)).toBe(true);
      const first = limits.reserve('busy', 250);
      const second = limits.reserve('busy', 250);
      limits.release('busy');
      expect(await first).toBe(true);
      expect(limits.tryReserve('busy')).toBe(false);
      limits.release('busy');
      expect(await second).toBe(true);
      limits.release('busy');
      expect(limits.tryReserve('busy')).toBe(true);
    });

    it('gives up after the wait, leaving the slot to whoever holds it', async () => {
      const limits = new ConcurrencyLimits(10, 1);
      limits.tryReserve('slow');
      const waiting = limits.reserve('slow', 250);
      jest.advanceTimersByTime(250);
      expect(await waiting).toBe(false);
      limits.release('slow');
      expect(limits.tryReserve('slow')).toBe(true);
    });

    it('does not wait when asked not to', async () => {
      const limits = new ConcurrencyLimits(10, 1);
      limits.tryReserve('a');
      expect(await limits.reserve('a', 0)).toBe(false);
    });
  });

  describe('withSlot', () => {
    it('runs the work holding both slots, and releases them when it ends', async () => {
      const limits = new ConcurrencyLimits(10, 1);
      const result = await limits.withSlot(unlimited('a'), 0, () => {
        expect(limits.inFlight).toBe(1);
        expect(limits.tryReserve('a')).toBe(false);
        return Promise.resolve('done');
      });

      expect(result).toEqual({ ran: true, value: 'done' });
      expect(limits.inFlight).toBe(0);
      expect(limits.tryReserve('a')).toBe(true);
    });

    it('does not run the work when the endpoint has no free slot', async () => {
      const limits = new ConcurrencyLimits(10, 1);
      limits.tryReserve('a');
      const work = jest.fn(() => Promise.resolve());

      expect(await limits.withSlot(unlimited('a'), 0, work)).toEqual({
        ran: false,
        reason: 'endpoint_busy',
      });
      expect(work).not.toHaveBeenCalled();
    });

    it('releases once, however often the work releases early, and when the work throws', async () => {
      const limits = new ConcurrencyLimits(10, 2);
      await expect(
        limits.withSlot(unlimited('a'), 0, (release) => {
          release();
          release();
          return Promise.reject(new Error('boom'));
        }),
      ).rejects.toThrow('boom');

      expect(limits.inFlight).toBe(0);
      expect(limits.tryReserve('a')).toBe(true);
      expect(limits.tryReserve('a')).toBe(true);
      expect(limits.tryReserve('a')).toBe(false);
    });

    it('runs beforeGlobal after the endpoint slot is taken and before the global one', async () => {
      const limits = new ConcurrencyLimits(10, 1);
      const seen: string[] = [];
      await limits.withSlot(
        unlimited('a'),
        0,
        () => {
          seen.push(`work, ${limits.inFlight} global`);
          return Promise.resolve();
        },
        () => {
          seen.push(`before, ${limits.inFlight} global, endpoint full: ${!limits.tryReserve('a')}`);
          return Promise.resolve();
        },
      );

      expect(seen).toEqual(['before, 0 global, endpoint full: true', 'work, 1 global']);
    });
  });

  describe('withSlot and the rate limit', () => {
    /** An admission that answers as told and notes what the slots were when it was asked. */
    function admission(answer: Admission, limits: () => ConcurrencyLimits) {
      const asked: string[] = [];
      const gate: AttemptAdmission = {
        admit: (endpoint) => {
          asked.push(`${endpoint.id}, ${limits().inFlight} global`);
          return Promise.resolve(answer);
        },
      };
      return { gate, asked };
    }

    it('asks the rate limit last, holding both slots, and runs the work when admitted', async () => {
      const { gate, asked } = admission({ admitted: true }, () => limits);
      const limits = new ConcurrencyLimits(10, 1, gate);
      const endpoint = { id: 'limited', rateLimitPerSecond: 5 };

      const result = await limits.withSlot(endpoint, 0, () => Promise.resolve('sent'));

      expect(asked).toEqual(['limited, 1 global']);
      expect(result).toEqual({ ran: true, value: 'sent' });
    });

    it('does not run the work when refused, says how long to wait, and frees both slots', async () => {
      const { gate } = admission({ admitted: false, retryInMs: 640 }, () => limits);
      const limits = new ConcurrencyLimits(10, 1, gate);
      const work = jest.fn(() => Promise.resolve());

      const result = await limits.withSlot({ id: 'limited', rateLimitPerSecond: 5 }, 0, work);

      expect(result).toEqual({ ran: false, reason: 'rate_limited', retryInMs: 640 });
      expect(work).not.toHaveBeenCalled();
      expect(limits.inFlight).toBe(0);
      expect(limits.tryReserve('limited')).toBe(true);
    });

    it('does not ask the rate limit for an attempt that found its endpoint busy', async () => {
      const { gate, asked } = admission({ admitted: true }, () => limits);
      const limits = new ConcurrencyLimits(10, 1, gate);
      limits.tryReserve('limited');

      await limits.withSlot({ id: 'limited', rateLimitPerSecond: 5 }, 0, () => Promise.resolve());

      expect(asked).toEqual([]);
    });
  });

  describe('the lanes of hot tenants (ADR 0032)', () => {
    it('lets the lanes hold at most their part of the global bound while main attempts run', async () => {
      const limits = new ConcurrencyLimits(5, 10, undefined, 3);
      await limits.acquireGlobal('main');
      for (let i = 0; i < 3; i += 1) {
        await limits.acquireGlobal('lane');
      }
      let fourthLane = false;
      const waitingLane = limits.acquireGlobal('lane').then(() => (fourthLane = true));
      await Promise.resolve();

      expect(fourthLane).toBe(false);
      expect(limits.inFlight).toBe(4);
      expect(limits.lanesInFlight).toBe(3);
      limits.release('x', 'lane');
      await waitingLane;
      expect(limits.lanesInFlight).toBe(3);
    });

    it('lets lanes use every slot while no main attempt runs or waits; a main attempt then gets the first slot freed', async () => {
      const limits = new ConcurrencyLimits(3, 10, undefined, 1);
      for (let i = 0; i < 3; i += 1) {
        await limits.acquireGlobal('lane');
      }
      expect(limits.lanesInFlight).toBe(3);
      let mainRan = false;
      const main = limits.acquireGlobal('main').then(() => (mainRan = true));
      let laneRan = false;
      const lane = limits.acquireGlobal('lane').then(() => (laneRan = true));
      await Promise.resolve();
      expect(mainRan).toBe(false);

      limits.release('x', 'lane');
      await main;
      // Main work runs now: lanes get slots again only under their part (1).
      limits.release('x', 'lane');
      await Promise.resolve();
      expect(laneRan).toBe(false);
      limits.release('x', 'lane');
      await lane;
      expect(limits.lanesInFlight).toBe(1);
      expect(limits.inFlight).toBe(2);
    });

    it('gives a freed slot to a waiting main attempt before a waiting lane attempt', async () => {
      const limits = new ConcurrencyLimits(2, 10, undefined, 2);
      await limits.acquireGlobal('lane');
      await limits.acquireGlobal('lane');
      const order: string[] = [];
      const lane = limits.acquireGlobal('lane').then(() => order.push('lane'));
      const main = limits.acquireGlobal('main').then(() => order.push('main'));

      limits.release('x', 'lane');
      await main;
      expect(order).toEqual(['main']);
      limits.release('x', 'lane');
      await lane;
      expect(order).toEqual(['main', 'lane']);
    });

    it('runs a lane attempt through withSlot in its class and frees its slot afterwards', async () => {
      const limits = new ConcurrencyLimits(10, 2, undefined, 5);
      const seen: number[] = [];
      await limits.withSlot(
        unlimited('a'),
        0,
        () => {
          seen.push(limits.lanesInFlight);
          return Promise.resolve();
        },
        undefined,
        'lane',
      );

      expect(seen).toEqual([1]);
      expect(limits.lanesInFlight).toBe(0);
      expect(limits.inFlight).toBe(0);
    });

    it('frees no global slot it never took when beforeGlobal fails', async () => {
      const limits = new ConcurrencyLimits(1, 2);
      await limits.acquireGlobal();
      await expect(
        limits.withSlot(
          unlimited('a'),
          0,
          () => Promise.resolve(),
          () => Promise.reject(new Error('stopping')),
        ),
      ).rejects.toThrow('stopping');

      expect(limits.inFlight).toBe(1);
      expect(limits.tryReserve('a')).toBe(true);
    });
  });
});
