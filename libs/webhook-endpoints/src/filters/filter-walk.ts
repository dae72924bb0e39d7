import { RuleViolation } from '../rules/rule-violation';
import { FILTER_LIMITS } from './filter-limits';

/** A problem with a filter: `field` is its path in the filter (`filter.data.severity.$in[3]`). */
export type FilterProblem = RuleViolation;

/** What one validation pass gathers: the problems in document order, and the operators counted. */
export class FilterWalk {
  readonly problems: FilterProblem[] = [];
  private operatorCount = 0;

  /** Records a problem; returns undefined so that a compiling step can `return walk.refuse(…)`. */
  refuse(field: string, detail: string): undefined {
    this.problems.push({ field, detail });
    return undefined;
  }

  /** Counts the operator at `path`; the first one over the limit is the one named. */
  countOperator(path: string): void {
    this.operatorCount += 1;
    if (this.operatorCount === FILTER_LIMITS.maxOperators + 1) {
      this.refuse(
        path,
        `is operator number ${this.operatorCount}: a filter holds at most ${FILTER_LIMITS.maxOperators} operators ($ keys)`,
      );
    }
  }

  /** Whether an object or array at `depth` (the filter being 1) is within the nesting limit. */
  withinDepth(path: string, depth: number): boolean {
    if (depth <= FILTER_LIMITS.maxDepth) return true;
    this.refuse(
      path,
      `is nested ${depth} levels deep: objects and arrays nest at most ${FILTER_LIMITS.maxDepth} levels`,
    );
    return false;
  }
}
