export * from './compile-filter';
export { type FilterVerdict } from './filter-clauses';
export { FILTER_LIMITS } from './filter-limits';
export { type FilterProblem } from './filter-walk';
export { type PlainValue } from './value-tests';
