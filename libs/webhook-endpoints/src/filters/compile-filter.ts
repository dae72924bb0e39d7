/**
 * Payload filters (ADR 0046): a filter's JSON is validated and compiled once into closures, which
 * then match envelopes without reading the JSON again. Hand-written rather than sift or mingo,
 * because our operators differ from MongoDB's ($neq, $startsWith, no $regex), explain() must name
 * the deciding clause, and validation must be strict, bounded, and name the path of each problem.
 */
import {
  allOf,
  alwaysMatches,
  anyOf,
  type Clause,
  fieldClause,
  type FilterVerdict,
  leafClause,
  negation,
} from './filter-clauses';
import { exceedsCharacters, FILTER_LIMITS } from './filter-limits';
import { fieldPath, isJsonRecord, itemPath, type JsonRecord, operatorPath } from './filter-values';
import { type FilterProblem, FilterWalk } from './filter-walk';
import {
  checkPlainValue,
  isValueOperator,
  valueOperatorClause,
  VALUE_OPERATORS,
} from './value-operators';
import { equalityTest } from './value-tests';

export interface CompiledFilter {
  /** The engine's question: does the envelope match? Nothing is allocated to answer it. */
  matches(envelope: unknown): boolean;
  /** The same answer, with the path of the clause that decided it (for the test route). */
  explain(envelope: unknown): FilterVerdict;
}

export type FilterCompilation =
  { ok: true; filter: CompiledFilter } | { ok: false; problems: FilterProblem[] };

const ROOT_PATH = 'filter';
const LOGICAL_OPERATORS = ['$and', '$or', '$not'] as const;
const ALL_OPERATORS = [...VALUE_OPERATORS, ...LOGICAL_OPERATORS].join(', ');

/** Validates a filter (parsed JSON) against the language and its limits, and compiles it. */
export function compileFilter(filter: unknown): FilterCompilation {
  if (!isJsonRecord(filter)) {
    return refusedAs(ROOT_PATH, 'must be a JSON object; {} matches every event');
  }
  const sizeProblem = serializedSizeProblem(filter);
  if (sizeProblem !== undefined) return { ok: false, problems: [sizeProblem] };
  const walk = new FilterWalk();
  const clause = filterClause(filter, ROOT_PATH, 1, walk);
  if (clause === undefined || walk.problems.length > 0) {
    return { ok: false, problems: walk.problems };
  }
  return { ok: true, filter: { matches: clause.test, explain: clause.explain } };
}

function refusedAs(field: string, detail: string): FilterCompilation {
  return { ok: false, problems: [{ field, detail }] };
}

/** Checked first and alone: nothing larger than the limit is worth walking. */
function serializedSizeProblem(filter: JsonRecord): FilterProblem | undefined {
  let json: string;
  try {
    json = JSON.stringify(filter);
  } catch {
    return { field: ROOT_PATH, detail: 'must be JSON: no cycles, no BigInt' };
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= FILTER_LIMITS.maxSerializedBytes) return undefined;
  return {
    field: ROOT_PATH,
    detail: `is ${bytes} bytes of JSON: a filter is at most ${FILTER_LIMITS.maxSerializedBytes}`,
  };
}

type OperatorCompiler = (
  operator: string,
  operand: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
) => Clause | undefined;

/** A filter: field names, or `$and`, `$or`, `$not` taking filters; {} matches everything. */
function filterClause(
  filter: JsonRecord,
  path: string,
  depth: number,
  walk: FilterWalk,
): Clause | undefined {
  if (!walk.withinDepth(path, depth)) return undefined;
  if (Object.keys(filter).length === 0) return alwaysMatches(path);
  return objectClause(filter, path, depth, walk, filterOperatorClause);
}

/** A condition on the value at hand: a plain value, an operator object or a nested filter. */
function conditionClause(
  condition: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
): Clause | undefined {
  if (!isJsonRecord(condition)) {
    return checkPlainValue(condition, path, depth, walk)
      ? leafClause(path, equalityTest(condition))
      : undefined;
  }
  if (!walk.withinDepth(path, depth)) return undefined;
  if (Object.keys(condition).length === 0) {
    return walk.refuse(
      path,
      'an empty object is not a condition: it could mean "equals {}" or "anything", so it is refused; {"$exists": true} asks for any value',
    );
  }
  return objectClause(condition, path, depth, walk, conditionOperatorClause);
}

/** All keys operators (each compiled by `compileOperator`) or all field names; never both. */
function objectClause(
  object: JsonRecord,
  path: string,
  depth: number,
  walk: FilterWalk,
  compileOperator: OperatorCompiler,
): Clause | undefined {
  const keys = Object.keys(object);
  const operators = keys.filter((key) => key.startsWith('$'));
  const fields = keys.filter((key) => !key.startsWith('$'));
  if (operators.length > 0 && fields.length > 0) {
    return walk.refuse(
      path,
      `mixes operators (${operators.join(', ')}) with field names (${fields.join(', ')}): an object is either one or the other; combine them with $and`,
    );
  }
  const clauses = keys.map((key) =>
    operators.length > 0
      ? compileOperator(key, object[key], operatorPath(path, key), depth + 1, walk)
      : fieldConditionClause(key, object[key], path, depth, walk),
  );
  return allDefined(clauses) ? allOf(path, clauses) : undefined;
}

function fieldConditionClause(
  name: string,
  condition: unknown,
  parentPath: string,
  parentDepth: number,
  walk: FilterWalk,
): Clause | undefined {
  const path = fieldPath(parentPath, name);
  if (name === '') walk.refuse(path, 'a field name must not be empty');
  if (exceedsCharacters(name, FILTER_LIMITS.maxFieldNameLength)) {
    walk.refuse(path, `a field name is at most ${FILTER_LIMITS.maxFieldNameLength} characters`);
  }
  const clause = conditionClause(condition, path, parentDepth + 1, walk);
  return clause && fieldClause(name, clause);
}

/** At a filter's top: only the logical operators, taking filters. */
function filterOperatorClause(
  operator: string,
  operand: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
): Clause | undefined {
  walk.countOperator(path);
  switch (operator) {
    case '$and':
    case '$or':
      return logicalListClause(operator, operand, path, depth, walk, filterBranchClause);
    case '$not': {
      const inner = filterBranchClause(operand, path, depth, walk);
      return inner && negation(path, inner);
    }
    default:
      return walk.refuse(
        path,
        isValueOperator(operator)
          ? `${operator} tests a field's value, so it stands under a field name ({"type": {"${operator}": …}}); a filter's own keys are field names, or $and, $or, $not`
          : unknownOperator(operator),
      );
  }
}

function filterBranchClause(
  branch: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
): Clause | undefined {
  if (isJsonRecord(branch)) return filterClause(branch, path, depth, walk);
  return walk.refuse(path, 'must be a filter (a JSON object of field names)');
}

/** In an operator object: every operator, the logical ones taking conditions. */
function conditionOperatorClause(
  operator: string,
  operand: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
): Clause | undefined {
  walk.countOperator(path);
  if (isValueOperator(operator)) return valueOperatorClause(operator, operand, path, depth, walk);
  switch (operator) {
    case '$and':
    case '$or':
      return logicalListClause(operator, operand, path, depth, walk, conditionClause);
    case '$not': {
      const inner = conditionClause(operand, path, depth, walk);
      return inner && negation(path, inner);
    }
    default:
      return walk.refuse(path, unknownOperator(operator));
  }
}

function logicalListClause(
  operator: '$and' | '$or',
  operand: unknown,
  path: string,
  depth: number,
  walk: FilterWalk,
  compileBranch: (
    branch: unknown,
    path: string,
    depth: number,
    walk: FilterWalk,
  ) => Clause | undefined,
): Clause | undefined {
  if (!Array.isArray(operand) || operand.length === 0) {
    return walk.refuse(path, `${operator} takes a non-empty array`);
  }
  if (!walk.withinDepth(path, depth)) return undefined;
  // Array.from rather than map, so that a hole in a sparse array is seen (and refused).
  const branches = Array.from(operand, (branch: unknown, index) =>
    compileBranch(branch, itemPath(path, index), depth + 1, walk),
  );
  if (!allDefined(branches)) return undefined;
  return operator === '$and' ? allOf(path, branches) : anyOf(path, branches);
}

function unknownOperator(operator: string): string {
  return `unknown operator ${operator}; the operators are ${ALL_OPERATORS}`;
}

function allDefined(clauses: readonly (Clause | undefined)[]): clauses is readonly Clause[] {
  return clauses.every((clause) => clause !== undefined);
}
