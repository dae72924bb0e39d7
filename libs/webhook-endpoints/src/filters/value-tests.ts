import type { ValueTest } from './filter-clauses';

/** What a filter compares with: JSON scalars and arrays of them, never an object. */
export type PlainValue = string | number | boolean | null | readonly PlainValue[];

/** Deep equality with `expected`; arrays element by element, same length, same order. */
export function equalityTest(expected: PlainValue): ValueTest {
  if (!Array.isArray(expected)) return (value) => value === expected;
  const elementTests = expected.map(equalityTest);
  return (value) => {
    if (!Array.isArray(value) || value.length !== elementTests.length) return false;
    for (let index = 0; index < elementTests.length; index += 1) {
      if (!elementTests[index](value[index])) return false;
    }
    return true;
  };
}

/** Deep-equal to one of `items`: scalars by one set look-up, arrays one by one. */
export function membershipTest(items: readonly PlainValue[]): ValueTest {
  const scalars: ReadonlySet<unknown> = new Set(items.filter((item) => !Array.isArray(item)));
  const arrayTests = items.filter((item) => Array.isArray(item)).map(equalityTest);
  if (arrayTests.length === 0) return (value) => scalars.has(value);
  return (value) => {
    if (scalars.has(value)) return true;
    for (const test of arrayTests) if (test(value)) return true;
    return false;
  };
}

export type OrderOperator = '$gt' | '$gte' | '$lt' | '$lte';

/**
 * Order against `bound`: numbers with numbers, strings with strings by UTF-16 code units (so ISO
 * 8601 times in UTC compare as times); any other pairing, a missing field included, is false.
 */
export function orderTest(operator: OrderOperator, bound: number | string): ValueTest {
  const kind = typeof bound;
  const sameKind = (value: unknown): value is typeof bound => typeof value === kind;
  switch (operator) {
    case '$gt':
      return (value) => sameKind(value) && value > bound;
    case '$gte':
      return (value) => sameKind(value) && value >= bound;
    case '$lt':
      return (value) => sameKind(value) && value < bound;
    case '$lte':
      return (value) => sameKind(value) && value <= bound;
  }
}

/** `$exists`: present means an own property whose value is not undefined. */
export function existenceTest(shouldExist: boolean): ValueTest {
  return (value) => (value !== undefined) === shouldExist;
}

export function prefixTest(prefix: string): ValueTest {
  return (value) => typeof value === 'string' && value.startsWith(prefix);
}

export function oppositeTest(test: ValueTest): ValueTest {
  return (value) => !test(value);
}
