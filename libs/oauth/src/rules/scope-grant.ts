import { isScope, Scope } from '@svc/contracts';

/**
 * The scopes a grant carries: those requested (space-separated, RFC 6749 3.3) that the user is
 * allowed, in the order requested. Names that are not scopes are reported, not granted.
 */
export function grantScopes(
  requested: string,
  allowed: readonly Scope[],
): { granted: Scope[]; unknown: string[] } {
  const names = [...new Set(requested.split(' ').filter((name) => name.length > 0))];
  return {
    granted: names.filter((name): name is Scope => isScope(name) && allowed.includes(name)),
    unknown: names.filter((name) => !isScope(name)),
  };
}
