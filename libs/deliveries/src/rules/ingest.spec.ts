import { decideIngest, sameJson } from './ingest';

const envelope = {
  id: 'evt_1',
  type: 'alert.created',
  tenant_id: 'ten_a',
  created_at: '2026-11-27T10:00:00.000Z',
  data: { severity: 'high', tags: ['a', 'b'] },
};

describe('decideIngest', () => {
  it('given no stored body, when an event arrives, then it is new (redelivered or not)', () => {
    expect(decideIngest(null, envelope, false)).toBe('new');
    expect(decideIngest(null, envelope, true)).toBe('new');
  });

  it('given the same event stored, when it is published again, then it is a duplicate', () => {
    expect(decideIngest(JSON.stringify(envelope), envelope, false)).toBe('duplicate');
  });

  it('given the same event stored, when the same message is handed out again, then the engine resumes it', () => {
    expect(decideIngest(JSON.stringify(envelope), envelope, true)).toBe('resume');
  });

  it('given the same content in another key order and spacing, when compared, then it is the same event', () => {
    const reordered = `{ "data": {"tags":["a","b"], "severity":"high"}, "tenant_id":"ten_a",
      "created_at":"2026-11-27T10:00:00.000Z", "type":"alert.created", "id":"evt_1" }`;
    expect(decideIngest(reordered, envelope, false)).toBe('duplicate');
  });

  it('given another body under the same id, when it arrives, then it conflicts, redelivered or not', () => {
    const other = { ...envelope, data: { severity: 'low', tags: ['a', 'b'] } };
    expect(decideIngest(JSON.stringify(envelope), other, false)).toBe('conflict');
    expect(decideIngest(JSON.stringify(envelope), other, true)).toBe('conflict');
  });

  it('given an array in another order, when compared, then it is another event', () => {
    const other = { ...envelope, data: { severity: 'high', tags: ['b', 'a'] } };
    expect(decideIngest(JSON.stringify(envelope), other, false)).toBe('conflict');
  });

  it('given a stored body nested 20,000 levels, when the same event comes again, then it is a duplicate, the stack intact', () => {
    const deep = (levels: number, leaf: unknown) => {
      let value: unknown = leaf;
      for (let level = 0; level < levels; level += 1) {
        value = { a: value };
      }
      return { ...envelope, data: value };
    };
    // Written out by hand: JSON.stringify itself recurses.
    const stored = `${JSON.stringify({ ...envelope, data: 0 }).replace('"data":0}', '')}"data":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_001)}`;
    expect(decideIngest(stored, deep(20_000, 1), false)).toBe('duplicate');
    expect(decideIngest(stored, deep(20_000, 2), false)).toBe('conflict');
  });
});

describe('sameJson', () => {
  it('compares JSON values member order aside, arrays in order, types strictly', () => {
    expect(sameJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: 1 }, { a: '1' })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});
