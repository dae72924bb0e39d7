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
});
