import { type Clause, leafClause, type ValueTest } from './filter-clauses';
import { exceedsCharacters, FILTER_LIMITS } from './filter-limits';
import { isJsonRecord, itemPath } from './filter-values';
import type { FilterWalk } from './filter-walk';
import {
  equalityTest,
  existenceTest,
  membershipTest,
  oppositeTest,
  orderTest,
  type PlainValue,
  prefixTest,
} from './value-tests';

/** The operators that test the value at hand, as opposed to combining conditions. */
export const VALUE_OPERATORS = [
  '$eq',
  '$neq',
  '$in',
  '$nin',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$exists',
  '$startsWith',
] as const;
export type ValueOperator = (typeof VALUE_OPERATORS)[number];

export function isValueOperator(key: string): key is ValueOperator {
  return (VALUE_OPERATORS as readonly string[]).includes(key);
}

/** Validates the operand of a value operator at `path` and compiles its test. */
export function valueOperatorClause(
  operator: ValueOperator,
  operand: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
): Clause | undefined {
  const test = valueOperatorTest(operator, operand, path, depth, walk);
  return test && leafClause(path, test);
}

function valueOperatorTest(
  operator: ValueOperator,
  operand: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
): ValueTest | undefined {
  switch (operator) {
    case '$eq':
    case '$neq': {
      if (!checkPlainValue(operand, path, depth, walk)) return undefined;
      const equal = equalityTest(operand);
      return operator === '$eq' ? equal : oppositeTest(equal);
    }
    case '$in':
    case '$nin': {
      const items = checkList(operator, operand, path, depth, walk);
      if (items === undefined) return undefined;
      const member = membershipTest(items);
      return operator === '$in' ? member : oppositeTest(member);
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return checkOrderBound(operand, path, walk) ? orderTest(operator, operand) : undefined;
    case '$exists':
      if (typeof operand === 'boolean') return existenceTest(operand);
      return walk.refuse(path, '$exists takes true or false');
    case '$startsWith':
      if (typeof operand !== 'string') return walk.refuse(path, '$startsWith takes a string');
      return checkString(operand, path, walk) ? prefixTest(operand) : undefined;
  }
}

const OBJECT_AS_VALUE =
  'compares with a plain value (string, number, boolean, null or an array of them), not an object: to test the fields of an object, use a nested filter';

/** A plain value: finite numbers, strings within the limit, arrays of plain values; no object. */
export function checkPlainValue(
  value: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
): value is PlainValue {
  if (typeof value === 'string') return checkString(value, path, walk);
  if (typeof value === 'boolean' || value === null) return true;
  if (typeof value === 'number') {
    return Number.isFinite(value) || failed(walk.refuse(path, 'must be a finite number'));
  }
  if (Array.isArray(value)) return checkPlainItems(value, path, depth, walk);
  return failed(walk.refuse(path, isJsonRecord(value) ? OBJECT_AS_VALUE : 'must be a JSON value'));
}

function failed(_: undefined): false {
  return false;
}

function checkPlainItems(
  items: readonly unknown[],
  path: string,
  depth: number,
  walk: FilterWalk,
): boolean {
  if (!walk.withinDepth(path, depth)) return false;
  let valid = true;
  // An index loop rather than forEach, so that a hole in a sparse array is seen (and refused).
  for (let index = 0; index < items.length; index += 1) {
    valid = checkPlainValue(items[index], itemPath(path, index), depth + 1, walk) && valid;
  }
  return valid;
}

function checkString(text: string, path: string, walk: FilterWalk): boolean {
  if (!exceedsCharacters(text, FILTER_LIMITS.maxStringLength)) return true;
  return failed(walk.refuse(path, `is longer than ${FILTER_LIMITS.maxStringLength} characters`));
}

function checkList(
  operator: '$in' | '$nin',
  operand: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
): readonly PlainValue[] | undefined {
  if (!Array.isArray(operand)) {
    return walk.refuse(path, `${operator} takes an array of plain values`);
  }
  if (operand.length > FILTER_LIMITS.maxListItems) {
    return walk.refuse(
      path,
      `has ${operand.length} items: ${operator} takes at most ${FILTER_LIMITS.maxListItems}`,
    );
  }
  return checkPlainValue(operand, path, depth, walk) ? operand : undefined;
}

function checkOrderBound(
  operand: unknown,
  path: string,
  walk: FilterWalk,
): operand is number | string {
  if (typeof operand === 'string') return checkString(operand, path, walk);
  if (typeof operand === 'number' && Number.isFinite(operand)) return true;
  return failed(
    walk.refuse(
      path,
      'takes a number or a string (numbers compare with numbers, strings with strings)',
    ),
  );
}
