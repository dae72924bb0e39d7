import { fieldOf } from './filter-values';

/** Whether an envelope matched, and the path in the filter of the clause that decided it. */
export interface FilterVerdict {
  readonly matched: boolean;
  readonly decidedBy: string;
}

/** A test of one value, built once from a filter's JSON. */
export type ValueTest = (value: unknown) => boolean;

/**
 * A compiled part of a filter, applied to the value at its point in the envelope. `test` is the
 * engine's path; `explain` answers the same question and names the deciding clause.
 */
export interface Clause {
  readonly path: string;
  readonly test: ValueTest;
  readonly explain: (value: unknown) => FilterVerdict;
}

/** Both answers of a clause made once, so that explaining allocates nothing per event. */
function verdictsOf(path: string): { matched: FilterVerdict; failed: FilterVerdict } {
  return {
    matched: Object.freeze({ matched: true, decidedBy: path }),
    failed: Object.freeze({ matched: false, decidedBy: path }),
  };
}

/** A clause that decides by itself: an operator, a plain value, a `$not`. */
export function leafClause(path: string, test: ValueTest): Clause {
  const { matched, failed } = verdictsOf(path);
  return { path, test, explain: (value) => (test(value) ? matched : failed) };
}

/** The empty filter: it asks nothing, so it matches everything. */
export function alwaysMatches(path: string): Clause {
  return leafClause(path, () => true);
}

/**
 * All must hold (an object's keys, `$and`). A failure is decided by the first failing clause in
 * document order; a match by the whole conjunction, since every clause took part. A conjunction
 * of one clause is that clause.
 */
export function allOf(path: string, clauses: readonly Clause[]): Clause {
  if (clauses.length === 1) return clauses[0];
  const tests = clauses.map((clause) => clause.test);
  const { matched } = verdictsOf(path);
  return {
    path,
    test: (value) => {
      for (const test of tests) if (!test(value)) return false;
      return true;
    },
    explain: (value) => {
      for (const clause of clauses) {
        const verdict = clause.explain(value);
        if (!verdict.matched) return verdict;
      }
      return matched;
    },
  };
}

/**
 * One must hold (`$or`). A match is decided by the first matching branch; a failure by the
 * disjunction itself, since every branch failed. A disjunction of one branch is that branch.
 */
export function anyOf(path: string, branches: readonly Clause[]): Clause {
  if (branches.length === 1) return branches[0];
  const tests = branches.map((branch) => branch.test);
  const { failed } = verdictsOf(path);
  return {
    path,
    test: (value) => {
      for (const test of tests) if (test(value)) return true;
      return false;
    },
    explain: (value) => {
      for (const branch of branches) {
        const verdict = branch.explain(value);
        if (verdict.matched) return verdict;
      }
      return failed;
    },
  };
}

/** `$not`: it decides both ways itself; what decided inside it would read as the opposite. */
export function negation(path: string, inner: Clause): Clause {
  const innerTest = inner.test;
  return leafClause(path, (value) => !innerTest(value));
}

/** A condition applied to the field `name` of the value at hand; it keeps the condition's path. */
export function fieldClause(name: string, condition: Clause): Clause {
  const { test, explain } = condition;
  return {
    path: condition.path,
    test: (value) => test(fieldOf(value, name)),
    explain: (value) => explain(fieldOf(value, name)),
  };
}
