/**
 * What a message's event is to the engine (ADR 0016):
 * - `new`: no body of the tenant's event is stored: every subscribed endpoint gets a delivery;
 * - `duplicate`: the same event published again (a publisher's retry after JetStream's duplicate
 *   window): its deliveries exist, nothing is sent again;
 * - `resume`: the same message handed out again (the engine stopped half-way through it): the
 *   endpoints still without a delivery get one;
 * - `conflict`: the tenant published another event under the same id: the first one stands, and
 *   this one is parked.
 */
export type IngestDecision = 'new' | 'duplicate' | 'resume' | 'conflict';

/**
 * Decides from the tenant's stored body of the event id (null when none is stored), the envelope
 * just received, and whether JetStream handed this message out before. Key order and spacing do
 * not make a different event: the content is compared, not the bytes.
 */
export function decideIngest(
  storedBody: string | null,
  envelope: unknown,
  redelivered: boolean,
): IngestDecision {
  if (storedBody === null) {
    return 'new';
  }
  if (!sameJson(JSON.parse(storedBody) as unknown, envelope)) {
    return 'conflict';
  }
  return redelivered ? 'resume' : 'duplicate';
}

/**
 * Whether two parsed JSON values are equal, member order aside. A walk with a list of its own,
 * not recursion: a stored body may predate the envelope's depth limit, and node's
 * isDeepStrictEqual overflowed the stack from about 1,250 levels (issue 30).
 */
export function sameJson(left: unknown, right: unknown): boolean {
  const pending: [unknown, unknown][] = [[left, right]];
  for (let pair = pending.pop(); pair; pair = pending.pop()) {
    const [a, b] = pair;
    if (a === b) {
      continue;
    }
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
      return false;
    }
    if (Array.isArray(a) !== Array.isArray(b)) {
      return false;
    }
    const aKeys = Object.keys(a);
    if (aKeys.length !== Object.keys(b).length) {
      return false;
    }
    for (const key of aKeys) {
      if (!Object.prototype.hasOwnProperty.call(b, key)) {
        return false;
      }
      pending.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]]);
    }
  }
  return true;
}
