import { type CompiledFilter, compileFilter } from './compile-filter';

function compiled(filter: unknown): CompiledFilter {
  const compilation = compileFilter(filter);
  if (!compilation.ok) throw new Error(`refused: ${JSON.stringify(compilation.problems)}`);
  return compilation.filter;
}

const matches = (filter: unknown, envelope: unknown = ENVELOPE) =>
  compiled(filter).matches(envelope);

const ENVELOPE = {
  id: 'evt_01',
  type: 'alert.created',
  tenant_id: 'ten_acme',
  created_at: '2026-03-01T12:00:00Z',
  data: {
    severity: 'high',
    score: 7.5,
    tags: ['prod', 'edr'],
    device: { env: 'prod', name: 'web-1' },
    resolved: false,
    owner: null,
  },
};

describe('compileFilter: matching', () => {
  it("matches the issue's example on high and critical alerts only", () => {
    const filter = compiled({ data: { severity: { $in: ['high', 'critical'] } } });
    const withSeverity = (severity: unknown) => ({ ...ENVELOPE, data: { severity } });
    expect(filter.matches(withSeverity('high'))).toBe(true);
    expect(filter.matches(withSeverity('critical'))).toBe(true);
    expect(filter.matches(withSeverity('low'))).toBe(false);
    expect(filter.matches({ ...ENVELOPE, data: {} })).toBe(false);
  });

  it('matches everything with the empty filter, objects or not', () => {
    for (const envelope of [ENVELOPE, {}, null, 'text', []]) {
      expect(matches({}, envelope)).toBe(true);
    }
  });

  it.each([
    [{ type: 'alert.created' }, true],
    [{ type: 'alert.closed' }, false],
    [{ data: { score: 7.5 } }, true],
    [{ data: { resolved: false } }, true],
    [{ data: { owner: null } }, true],
    [{ data: { assignee: null } }, false],
    [{ data: { tags: ['prod', 'edr'] } }, true],
    [{ data: { tags: ['edr', 'prod'] } }, false],
    [{ data: { tags: ['prod'] } }, false],
    [{ data: { tags: 'prod' } }, false],
    [{ data: { score: '7.5' } }, false],
  ])('a plain value is deep equality: %j → %s', (filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it.each([
    [{ $eq: 'high' }, true],
    [{ $eq: 'low' }, false],
    [{ $neq: 'low' }, true],
    [{ $neq: 'high' }, false],
    [{ $in: ['low', 'high'] }, true],
    [{ $in: ['low'] }, false],
    [{ $in: [] }, false],
    [{ $nin: ['low', 'medium'] }, true],
    [{ $nin: ['high'] }, false],
    [{ $nin: [] }, true],
    [{ $gt: 'critical' }, true],
    [{ $gte: 'high' }, true],
    [{ $lt: 'high' }, false],
    [{ $lte: 'high' }, true],
    [{ $exists: true }, true],
    [{ $exists: false }, false],
    [{ $startsWith: 'hi' }, true],
    [{ $startsWith: '' }, true],
    [{ $startsWith: 'igh' }, false],
    [{ $and: [{ $startsWith: 'h' }, { $neq: 'hot' }] }, true],
    [{ $and: [{ $startsWith: 'h' }, 'hot'] }, false],
    [{ $or: ['low', { $startsWith: 'hi' }] }, true],
    [{ $or: ['low', 'medium'] }, false],
    [{ $not: 'low' }, true],
    [{ $not: { $in: ['high', 'critical'] } }, false],
    [{ $gte: 'a', $lt: 'i' }, true],
    [{ $gte: 'a', $lt: 'h' }, false],
  ])('on a string field: %j → %s', (condition, expected) => {
    expect(matches({ data: { severity: condition } })).toBe(expected);
  });

  it.each([
    [{ $gt: 7 }, true],
    [{ $gt: 7.5 }, false],
    [{ $gte: 7.5 }, true],
    [{ $lt: 10 }, true],
    [{ $lte: 7.4 }, false],
    [{ $gt: '7' }, false],
    [{ $in: [1, 7.5] }, true],
    [{ $eq: 7.5 }, true],
    [{ $startsWith: '7' }, false],
  ])('on a number field: %j → %s (numbers compare with numbers only)', (condition, expected) => {
    expect(matches({ data: { score: condition } })).toBe(expected);
  });

  it('compares ISO times as strings, in time order', () => {
    expect(matches({ created_at: { $gte: '2026-03-01T00:00:00Z' } })).toBe(true);
    expect(matches({ created_at: { $lt: '2026-02-28T23:59:59Z' } })).toBe(false);
  });

  it('compares arrays exactly in $eq, $neq, $in and $nin', () => {
    expect(matches({ data: { tags: { $eq: ['prod', 'edr'] } } })).toBe(true);
    expect(matches({ data: { tags: { $neq: ['prod'] } } })).toBe(true);
    expect(matches({ data: { tags: { $in: ['prod', ['prod', 'edr']] } } })).toBe(true);
    expect(matches({ data: { tags: { $nin: [['prod', 'edr']] } } })).toBe(false);
  });

  it('treats a missing field as undefined: only $neq, $nin, $exists false and $not hold', () => {
    const holding = [{ $neq: 'x' }, { $nin: ['x'] }, { $exists: false }, { $not: 'x' }];
    const failing = [
      { $eq: null },
      null,
      { $in: [null] },
      { $gt: 0 },
      { $lt: 'z' },
      { $startsWith: '' },
      { $exists: true },
    ];
    for (const condition of holding) expect(matches({ data: { missing: condition } })).toBe(true);
    for (const condition of failing) expect(matches({ data: { missing: condition } })).toBe(false);
  });

  it('descends into nested objects; fields of a non-object are missing', () => {
    expect(matches({ data: { device: { env: 'prod', name: { $startsWith: 'web-' } } } })).toBe(
      true,
    );
    expect(matches({ data: { device: { env: 'staging' } } })).toBe(false);
    expect(matches({ data: { severity: { length: 4 } } })).toBe(false);
    expect(matches({ data: { tags: { length: 2 } } })).toBe(false);
    expect(matches({ data: { tags: { 0: 'prod' } } })).toBe(false);
    expect(matches({ nothing: { deeper: { $exists: false } } })).toBe(true);
  });

  it('takes $or, $and and $not at the top of a filter and of a field, over filters', () => {
    const criticalOrCreated = {
      $or: [{ type: 'alert.created' }, { data: { severity: 'critical' } }],
    };
    expect(matches(criticalOrCreated)).toBe(true);
    expect(matches(criticalOrCreated, { ...ENVELOPE, type: 'alert.closed' })).toBe(false);
    expect(matches({ $and: [{ type: 'alert.created' }, { data: { score: { $gt: 5 } } }] })).toBe(
      true,
    );
    expect(matches({ $not: { type: 'alert.created' } })).toBe(false);
    expect(matches({ $and: [{}, { $not: {} }] })).toBe(false);
    expect(matches({ data: { $or: [{ severity: 'low' }, { device: { env: 'prod' } }] } })).toBe(
      true,
    );
    expect(matches({ data: { $not: { severity: 'high', resolved: true } } })).toBe(true);
  });

  it('requires every key of an object to hold', () => {
    expect(matches({ type: 'alert.created', data: { severity: 'high', score: { $gt: 9 } } })).toBe(
      false,
    );
    expect(matches({ type: 'alert.created', data: { severity: 'high', score: { $gt: 5 } } })).toBe(
      true,
    );
  });
});

describe('compileFilter: prototype keys are plain field names, never found on Object.prototype', () => {
  it.each([['__proto__'], ['constructor'], ['toString'], ['hasOwnProperty']])(
    '%s is missing unless the envelope has it as its own field',
    (name) => {
      const exists = JSON.parse(`{"data": {"${name}": {"$exists": true}}}`) as unknown;
      const isObject = JSON.parse(`{"${name}": {"name": "Object"}}`) as unknown;
      expect(compiled(exists).matches(ENVELOPE)).toBe(false);
      expect(compiled(isObject).matches(ENVELOPE)).toBe(false);
      const ownField = JSON.parse(`{"data": {"${name}": "mine"}}`) as unknown;
      expect(compiled(exists).matches(ownField)).toBe(true);
    },
  );

  it('leaves Object.prototype untouched by a filter naming __proto__', () => {
    const filter = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    compiled(filter).matches(ENVELOPE);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** The filter's JSON behind revocable proxies, so that any read of it after revoking throws. */
function revocableDeeply(value: unknown, revokers: (() => void)[]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const copy: unknown = Array.isArray(value)
    ? value.map((item) => revocableDeeply(item, revokers))
    : Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, revocableDeeply(item, revokers)]),
      );
  const { proxy, revoke } = Proxy.revocable(copy as object, {});
  revokers.push(revoke);
  return proxy;
}

describe('compileFilter: compiled once', () => {
  it('matches 10,000 envelopes without reading the filter JSON again', () => {
    const revokers: (() => void)[] = [];
    const filter = compiled(
      revocableDeeply(
        { data: { severity: { $in: ['high', 'critical'] }, score: { $gte: 5 } } },
        revokers,
      ),
    );
    for (const revoke of revokers) revoke();
    const severities = ['low', 'medium', 'high', 'critical'];
    let matched = 0;
    let explainedAlike = 0;
    for (let index = 0; index < 10_000; index += 1) {
      const envelope = { data: { severity: severities[index % 4], score: index % 10 } };
      const result = filter.matches(envelope);
      if (result) matched += 1;
      if (filter.explain(envelope).matched === result) explainedAlike += 1;
    }
    expect(explainedAlike).toBe(10_000);
    // Severity high or critical (2 in 4) and score 5 to 9 (5 in 10), independent over 20 steps.
    expect(matched).toBe(2_500);
  });
});
