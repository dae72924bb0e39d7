import fc from 'fast-check';
import { type CompiledFilter, compileFilter } from './compile-filter';
import { FILTER_LIMITS } from './filter-limits';

/**
 * Filters and envelopes drawn from the same few field names and values, so that matches are
 * frequent: a generator of unrelated strings would test mostly that nothing matches.
 */
const FIELD_NAMES = ['type', 'severity', 'score', 'env', 'tags', 'constructor'] as const;
const SCALARS = [
  'alert.created',
  'alert.closed',
  'high',
  'critical',
  'prod',
  'pr',
  '',
  0,
  1,
  7.5,
  -2,
  true,
  false,
  null,
];

const fieldName = fc.constantFrom(...FIELD_NAMES);
const scalar = fc.constantFrom(...SCALARS);
const orderBound = fc.constantFrom('alert', 'high', 'p', '', 0, 1, 7.5, -2);
const prefix = fc.constantFrom('', 'p', 'pr', 'alert.', 'hi', 'x');

/** Memoized by the levels left, so that the recursion builds one arbitrary per level. */
function byLevels<T>(
  build: (levels: number) => fc.Arbitrary<T>,
): (levels: number) => fc.Arbitrary<T> {
  const built = new Map<number, fc.Arbitrary<T>>();
  return (levels) => {
    if (!built.has(levels)) built.set(levels, build(levels));
    return built.get(levels)!;
  };
}

/** Scalars, and (given a level for the array) short arrays of plain values. */
const plainValue = byLevels((levels): fc.Arbitrary<unknown> =>
  levels < 1
    ? scalar
    : fc.oneof(scalar, scalar, fc.array(plainValue(levels - 1), { maxLength: 3 })),
);

/** One `$` key and its operand, the operand having `levels` levels left. */
const operatorEntry = byLevels((levels): fc.Arbitrary<[string, unknown]> => {
  const entries: fc.Arbitrary<[string, unknown]>[] = [
    fc.tuple(fc.constantFrom('$eq', '$neq'), plainValue(levels)),
    fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte'), orderBound),
    fc.tuple(fc.constant('$exists'), fc.boolean()),
    fc.tuple(fc.constant('$startsWith'), prefix),
    fc.tuple(fc.constant('$not'), condition(levels)),
  ];
  if (levels >= 1) {
    entries.push(
      fc.tuple(fc.constantFrom('$in', '$nin'), fc.array(plainValue(levels - 1), { maxLength: 4 })),
      fc.tuple(
        fc.constantFrom('$and', '$or'),
        fc.array(condition(levels - 1), { minLength: 1, maxLength: 3 }),
      ),
    );
  }
  return fc.oneof(...entries);
});

/** Field names with their conditions: a filter's or a nested filter's keys. */
const fieldsObject = byLevels((levels) =>
  fc.dictionary(fieldName, condition(levels - 1), { minKeys: 1, maxKeys: 3 }),
);

/** A condition: a plain value, an operator object or a nested filter, within `levels` levels. */
const condition = byLevels((levels): fc.Arbitrary<unknown> => {
  if (levels < 1) return scalar;
  const operatorObject = fc
    .array(operatorEntry(levels - 1), { minLength: 1, maxLength: 2 })
    .map((entries) => Object.fromEntries(entries));
  return fc.oneof(plainValue(levels), operatorObject, fieldsObject(levels));
});

/** A filter within `levels` levels: field names, or $and/$or/$not over filters, or {}. */
const filter = byLevels((levels): fc.Arbitrary<Record<string, unknown>> => {
  const choices: fc.Arbitrary<Record<string, unknown>>[] = [
    fieldsObject(levels),
    fieldsObject(levels),
    fc.constant({}),
  ];
  if (levels >= 2) choices.push(filter(levels - 1).map((inner) => ({ $not: inner })));
  if (levels >= 3) {
    const branches = fc.array(filter(levels - 2), { minLength: 1, maxLength: 3 });
    choices.push(fc.record({ $and: branches }), fc.record({ $or: branches }));
  }
  return fc.oneof(...choices);
});

/** An envelope's value: scalars, short arrays, objects of the same field names. */
const envelopeValue = byLevels((levels): fc.Arbitrary<unknown> =>
  levels < 1
    ? scalar
    : fc.oneof(
        scalar,
        fc.array(scalar, { maxLength: 3 }),
        fc.dictionary(fieldName, envelopeValue(levels - 1), { maxKeys: 4 }),
      ),
);
const envelope = fc.dictionary(fieldName, envelopeValue(3), { maxKeys: 5 });

/** A filter that leaves room for one more level and operator: `{"$not": f}` is within limits. */
const generatedFilter = filter(FILTER_LIMITS.maxDepth - 1);

function compiled(source: unknown): CompiledFilter {
  const compilation = compileFilter(source);
  if (!compilation.ok)
    throw new Error(`refused ${JSON.stringify(source)}: ${JSON.stringify(compilation.problems)}`);
  return compilation.filter;
}

/** The limits measured here independently of the compiler. */
function jsonDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(jsonDepth));
}
function operatorCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return Object.entries(value).reduce(
    (count, [key, item]) => count + (key.startsWith('$') ? 1 : 0) + operatorCount(item),
    0,
  );
}
function withinLimits(source: unknown, spare = 0): boolean {
  return (
    jsonDepth(source) + spare <= FILTER_LIMITS.maxDepth &&
    operatorCount(source) + spare <= FILTER_LIMITS.maxOperators &&
    Buffer.byteLength(JSON.stringify(source)) + 16 * spare <= FILTER_LIMITS.maxSerializedBytes
  );
}

describe('compileFilter, properties', () => {
  it('compiles every generated filter within the limits, and refuses the others', () => {
    // Two levels more than the limit, so that some filters nest too deep.
    let refused = 0;
    fc.assert(
      fc.property(filter(FILTER_LIMITS.maxDepth + 2), (source) => {
        const compilation = compileFilter(source);
        expect(compilation.ok).toBe(withinLimits(source));
        if (!compilation.ok) refused += 1;
      }),
      { numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(0);
  });

  it('matches {"$not": f} exactly when f does not match', () => {
    fc.assert(
      fc.property(generatedFilter, envelope, (source, event) => {
        fc.pre(withinLimits(source, 1));
        expect(compiled({ $not: source }).matches(event)).toBe(!compiled(source).matches(event));
      }),
      { numRuns: 300 },
    );
  });

  it('matches $in exactly as an $or of $eq', () => {
    const severity = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }));
    fc.assert(
      fc.property(
        fc.tuple(severity, severity, severity),
        fc.oneof(
          envelope,
          severity.map((value) => ({ severity: value })),
        ),
        (items, event) => {
          const membership = compiled({ severity: { $in: items } });
          const disjunction = compiled({ $or: items.map((item) => ({ severity: { $eq: item } })) });
          expect(membership.matches(event)).toBe(disjunction.matches(event));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('explains with the same answer as matches, deciding by a path that starts with filter', () => {
    fc.assert(
      fc.property(generatedFilter, envelope, (source, event) => {
        fc.pre(withinLimits(source));
        const matcher = compiled(source);
        const verdict = matcher.explain(event);
        expect(verdict.matched).toBe(matcher.matches(event));
        expect(verdict.decidedBy).toMatch(/^filter([.[]|$)/);
      }),
      { numRuns: 300 },
    );
  });

  it('generates filters that match often enough, and fail often enough, to mean something', () => {
    const samples = fc.sample(fc.tuple(generatedFilter, envelope), { numRuns: 400, seed: 33 });
    const outcomes = samples
      .filter(([source]) => withinLimits(source))
      .map(([source, event]) => compiled(source).matches(event));
    const matched = outcomes.filter(Boolean).length;
    expect(matched / outcomes.length).toBeGreaterThan(0.15);
    expect(matched / outcomes.length).toBeLessThan(0.85);
  });
});
