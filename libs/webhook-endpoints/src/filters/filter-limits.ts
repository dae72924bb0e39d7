/**
 * The bounds of a payload filter (ADR 0046). Every engine runs every matching endpoint's filter on
 * every event and keeps every endpoint's compiled filter in memory, so each bound caps either the
 * work per event or the memory per endpoint; a breach is a problem naming its path in the filter.
 */
export const FILTER_LIMITS = {
  /** UTF-8 bytes of the filter's JSON: what each engine caches per endpoint version. */
  maxSerializedBytes: 4096,
  /**
   * Nested objects and arrays, the filter itself being level 1: bounds the recursion of compiling
   * and matching, and real envelopes are seldom more than four levels deep.
   */
  maxDepth: 8,
  /** `$` keys in the whole filter: bounds the comparisons an event costs per endpoint. */
  maxOperators: 64,
  /** Characters of a string value: a criterion, not a payload; also bounds each comparison. */
  maxStringLength: 256,
  /** Items of an `$in` or `$nin`: a longer list is a lookup table, not a subscription. */
  maxListItems: 100,
  /** Characters of a field name: longer than any field of our envelopes, short enough to echo. */
  maxFieldNameLength: 64,
} as const;

/** Whether a text is longer than `max` characters as a person counts them (code points). */
export function exceedsCharacters(text: string, max: number): boolean {
  // n UTF-16 units hold at most n code points, so most texts need no counting.
  return text.length > max && [...text].length > max;
}
