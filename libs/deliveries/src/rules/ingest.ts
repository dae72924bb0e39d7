import { isDeepStrictEqual } from 'node:util';

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
  if (!isDeepStrictEqual(JSON.parse(storedBody), envelope)) {
    return 'conflict';
  }
  return redelivered ? 'resume' : 'duplicate';
}
