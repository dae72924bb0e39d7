import { derivedId, isId, newId } from './ids';
import { eventRetentionTime, retentionKeyColumn, retentionKeyOf } from './retention';

describe('retentionKeyOf', () => {
  it("reads a delivery's and a rejection's creation time from their ids", () => {
    const before = Date.now();
    const delivery = newId('del');
    const rejection = newId('rej');
    for (const id of [delivery, rejection]) {
      const key = retentionKeyOf(id)!.getTime();
      expect(key).toBeGreaterThanOrEqual(before);
      expect(key).toBeLessThanOrEqual(Date.now());
    }
  });

  it('keeps the history of endpoints, tenants, keys and grants (no key)', () => {
    for (const id of [newId('wh'), newId('ten'), newId('key'), newId('grt')]) {
      expect(retentionKeyOf(id)).toBeNull();
      expect(retentionKeyColumn(id)).toBe('-infinity');
    }
  });

  it('keeps what is not an id of delivery data, whatever its prefix looks like', () => {
    expect(retentionKeyOf('del_1')).toBeNull();
    expect(retentionKeyOf('stream-a')).toBeNull();
  });

  it('gives the same key for the same id, as an ISO instant', () => {
    const id = newId('del');
    expect(retentionKeyColumn(id)).toBe(retentionKeyColumn(id));
    expect(retentionKeyColumn(id)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe('derivedId', () => {
  const at = new Date('2026-11-25T10:00:00.123Z');

  it('is a valid id whose time is the one given', () => {
    const id = derivedId('del', at, ['ten_1', 'evt_1', 'wh_1']);
    expect(isId('del', id)).toBe(true);
    expect(retentionKeyOf(id)).toEqual(at);
  });

  it('is the same for the same parts, and differs when any part does', () => {
    const id = derivedId('del', at, ['ten_1', 'evt_1', 'wh_1']);
    expect(derivedId('del', at, ['ten_1', 'evt_1', 'wh_1'])).toBe(id);
    expect(derivedId('del', at, ['ten_2', 'evt_1', 'wh_1'])).not.toBe(id);
    expect(derivedId('del', at, ['ten_1', 'evt_1', 'wh_2'])).not.toBe(id);
    // Parts are kept apart: moving a character from one to the next is another id.
    expect(derivedId('del', at, ['ten_1e', 'vt_1', 'wh_1'])).not.toBe(id);
  });
});

describe('eventRetentionTime', () => {
  const DAY = 86_400_000;
  const window = { retentionMs: 30 * DAY, partitionWidthMs: DAY };
  const now = new Date('2026-11-25T10:00:00Z');

  it("takes the publisher's created_at when it is within the window", () => {
    expect(eventRetentionTime('2026-11-25T09:59:58.500Z', now, window)).toEqual(
      new Date('2026-11-25T09:59:58.500Z'),
    );
    expect(eventRetentionTime('2026-11-11T10:00:00Z', now, window)).toEqual(
      new Date('2026-11-11T10:00:00Z'),
    );
  });

  it('takes the time of receipt when created_at is far back, ahead, or not a time', () => {
    expect(eventRetentionTime('2026-10-01T00:00:00Z', now, window)).toEqual(now);
    expect(eventRetentionTime('2026-11-27T00:00:00Z', now, window)).toEqual(now);
    expect(eventRetentionTime('soon', now, window)).toEqual(now);
  });
});
