/** The permission scopes of spec section 5.1, with the words shown to people. */
export const SCOPE_DESCRIPTIONS = {
  'tenants:read': 'Read tenant profiles and configuration.',
  'tenants:write': 'Create and update tenant records.',
  'alerts:read': 'Read security alerts and threat events.',
  'alerts:write': 'Acknowledge, escalate or close alerts.',
  'devices:read': 'Read enrolled device inventory.',
  'identity:read': 'Read identity and access records.',
  'compliance:read': 'Read compliance posture and evidence.',
  'sentinel:read': 'Read incident data.',
  'sentinel:respond': 'Trigger automated response actions.',
  'webhooks:manage': 'Create and manage webhook endpoints.',
  // Not implied by webhooks:manage: who did what is a grant of its own (ADR 0047).
  'audit:read': "Read the tenant's audit trail: who changed what, and when.",
} as const;

export type Scope = keyof typeof SCOPE_DESCRIPTIONS;

export const SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.prototype.hasOwnProperty.call(SCOPE_DESCRIPTIONS, value);
}

/** Splits "a,b" or "a b" into scopes; names that are not scopes come back in `unknown`. */
export function parseScopeList(raw: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(raw.split(/[\s,]+/).filter((name) => name.length > 0))];
  return {
    scopes: names.filter(isScope),
    unknown: names.filter((name) => !isScope(name)),
  };
}
