import { RecentIds } from './recent-ids';

describe('RecentIds', () => {
  it('remembers the ids it was given', () => {
    const ids = new RecentIds(3);
    ids.add('evt_1');
    expect(ids.has('evt_1')).toBe(true);
    expect(ids.has('evt_2')).toBe(false);
  });

  it('forgets the oldest id beyond its capacity', () => {
    const ids = new RecentIds(2);
    ids.add('evt_1');
    ids.add('evt_2');
    ids.add('evt_3');
    expect(ids.size).toBe(2);
    expect(ids.has('evt_1')).toBe(false);
    expect(ids.has('evt_2')).toBe(true);
    expect(ids.has('evt_3')).toBe(true);
  });

  it('does not count an id seen again twice', () => {
    const ids = new RecentIds(2);
    ids.add('evt_1');
    ids.add('evt_1');
    ids.add('evt_2');
    expect(ids.has('evt_1')).toBe(true);
    expect(ids.size).toBe(2);
  });

  it('refuses a capacity that cannot hold an id', () => {
    expect(() => new RecentIds(0)).toThrow(RangeError);
    expect(() => new RecentIds(1.5)).toThrow(RangeError);
  });
});
