/**
 * The last two distinct tenants whose messages were taken into hand, and when: enough to say how
 * long ago a tenant other than a given one was taken, in constant memory however many tenants
 * there are. An intake keeps one for its own messages (TenantWindow, for its lanes); the engine
 * keeps one for all of its intakes together (ADR 0050: whether a tenant has the engine to itself).
 */
export class TenantsTaken {
  private lastTwo: { tenantId: string; atMs: number }[] = [];

  constructor(private readonly clock: () => number = Date.now) {}

  note(tenantId: string): void {
    const atMs = this.clock();
    this.lastTwo = [
      { tenantId, atMs },
      ...this.lastTwo.filter((seen) => seen.tenantId !== tenantId).slice(0, 1),
    ];
  }

  /** How long ago a message of any tenant but this one was taken; null if none ever was. */
  otherTenantAgoMs(tenantId: string): number | null {
    const other = this.lastTwo.find((seen) => seen.tenantId !== tenantId);
    return other ? this.clock() - other.atMs : null;
  }
}

/**
 * Whether a tenant's next message may come in as soon as its last one's numbering claim is queued
 * (ADR 0050), rather than once that one is numbered: only while no other tenant's message was
 * taken by the engine for `aloneForMs`. A tenant alone crowds nobody out and its claims share
 * statements; with another tenant about, its messages fan out one at a time as before, since
 * running ahead cost the other tenant's events latency (noisy-neighbour: p50 20 to 47-67 ms).
 */
export function mayRunAheadOfClaims(otherTenantAgoMs: number | null, aloneForMs: number): boolean {
  return otherTenantAgoMs === null || otherTenantAgoMs > aloneForMs;
}
