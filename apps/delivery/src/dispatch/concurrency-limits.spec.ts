import { ConcurrencyLimits } from './concurrency-limits';

describe('ConcurrencyLimits', () => {
  it('refuses an endpoint past its own bound without affecting others', () => {
    const limits = new ConcurrencyLimits(10, 2);
    expect(limits.tryReserve('slow')).toBe(true);
    expect(limits.tryReserve('slow')).toBe(true);
    expect(limits.tryReserve('slow')).toBe(false);
    expect(limits.tryReserve('healthy')).toBe(true);
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
});
