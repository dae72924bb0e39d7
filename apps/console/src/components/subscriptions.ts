/**
 * The events an endpoint subscribes to, as the API takes them: exact types (`alert.created`) and
 * family wildcards (`alert.*`). Pure helpers for the pickers.
 */
export const familyWildcard = (family: string): string => `${family}.*`;

export const familyOf = (type: string): string => type.split('.')[0];

/** Adds or removes one subscription, keeping the catalogue's order for a stable request. */
export function toggleSubscription(
  selected: readonly string[],
  value: string,
  checked: boolean,
): string[] {
  const without = selected.filter((item) => item !== value);
  return checked ? [...without, value] : without;
}

/**
 * Selecting a family's wildcard drops that family's single types (the wildcard covers them, and
 * the API refuses nothing for it, but a list that says both is confusing to read back).
 */
export function selectFamily(
  selected: readonly string[],
  family: string,
  checked: boolean,
): string[] {
  const wildcard = familyWildcard(family);
  const others = selected.filter((item) => item !== wildcard && familyOf(item) !== family);
  return checked ? [...others, wildcard] : others;
}

/** Whether `type` is received with this selection (by itself or through its family). */
export function isCovered(selected: readonly string[], type: string): boolean {
  return selected.includes(type) || selected.includes(familyWildcard(familyOf(type)));
}

/** Catalogue entries grouped by family, families in their first appearance's order. */
export function groupByFamily<T extends { family: string }>(
  entries: readonly T[],
): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const entry of entries) {
    const group = groups.get(entry.family) ?? [];
    group.push(entry);
    groups.set(entry.family, group);
  }
  return [...groups.entries()];
}
