import { TenantsTaken } from './tenants-taken';

/**
 * The tenants of the last messages an intake took into hand (ADR 0032): who the intake is busy
 * with, whatever the messages' fan-out and however fast each is handled (the messages in hand at
 * one moment can be a single one, waiting for its stored-body check). A fixed ring of tenant ids
 * and their counts: memory bounded by its size, however many tenants there are.
 */
export class TenantWindow {
  private readonly ring: string[] = [];
  private next = 0;
  private readonly counts = new Map<string, number>();

  private readonly taken: TenantsTaken;

  constructor(
    private readonly capacity: number,
    clock: () => number = Date.now,
  ) {
    this.taken = new TenantsTaken(clock);
  }

  note(tenantId: string): void {
    this.taken.note(tenantId);
    if (this.ring.length < this.capacity) {
      this.ring.push(tenantId);
    } else {
      const leaving = this.ring[this.next];
      const left = this.counts.get(leaving)! - 1;
      if (left > 0) {
        this.counts.set(leaving, left);
      } else {
        this.counts.delete(leaving);
      }
      this.ring[this.next] = tenantId;
      this.next = (this.next + 1) % this.capacity;
    }
    this.counts.set(tenantId, (this.counts.get(tenantId) ?? 0) + 1);
  }

  /**
   * How long ago a message of any tenant but this one was taken, or null if none was since the
   * intake started: whether anybody else is there to be crowded out (ADR 0032).
   */
  otherTenantAgoMs(tenantId: string): number | null {
    return this.taken.otherTenantAgoMs(tenantId);
  }

  /** Messages in the window (up to its capacity). */
  get size(): number {
    return this.ring.length;
  }

  /** The tenant with the most messages in the window, and how many; null when it is empty. */
  busiest(): { tenantId: string; messages: number } | null {
    let busiest: { tenantId: string; messages: number } | null = null;
    for (const [tenantId, messages] of this.counts) {
      if (busiest === null || messages > busiest.messages) {
        busiest = { tenantId, messages };
      }
    }
    return busiest;
  }
}
