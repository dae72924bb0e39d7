/** A message an intake pulled and has not yet taken into hand. */
export interface WaitingMessage<M> {
  message: M;
  /** The tenant its subject names; null when it names none (it is parked when taken). */
  tenantId: string | null;
  /** When JetStream stored it, in ms since the epoch. */
  publishedAt: number;
}

/**
 * The messages an intake pulled and has not yet taken, in stream order (ADR 0032). The next one
 * taken is the first whose tenant may take one now, not the first in line: a tenant's messages
 * wait for its own earlier one (its fan-out, its deliveries waiting for their endpoint's slot),
 * and another tenant's message pulled behind them does not wait with them. Each tenant's messages
 * are still taken in their order, since a tenant that may take one may take its first.
 */
export class PulledMessages<M> {
  private readonly waiting: WaitingMessage<M>[] = [];

  /** `tenantMayTake` says whether a tenant's next message may be taken now. */
  constructor(private readonly tenantMayTake: (tenantId: string) => boolean) {}

  get size(): number {
    return this.waiting.length;
  }

  push(message: WaitingMessage<M>): void {
    this.waiting.push(message);
  }

  /** The first message that may be taken now (of those `among` says, if given), without taking it. */
  peekNext(among?: (message: WaitingMessage<M>) => boolean): WaitingMessage<M> | undefined {
    const index = this.indexOfNext(among);
    return index === -1 ? undefined : this.waiting[index];
  }

  /** Takes out the first message that may be taken now, if any. */
  takeNext(): WaitingMessage<M> | undefined {
    const index = this.indexOfNext();
    return index === -1 ? undefined : this.waiting.splice(index, 1)[0];
  }

  /** Takes out the messages `taken` says to, in order. */
  takeWhere(taken: (message: WaitingMessage<M>) => boolean): WaitingMessage<M>[] {
    const out: WaitingMessage<M>[] = [];
    let kept = 0;
    for (const message of this.waiting) {
      if (taken(message)) {
        out.push(message);
      } else {
        this.waiting[kept] = message;
        kept += 1;
      }
    }
    this.waiting.length = kept;
    return out;
  }

  /** Takes out every message, in order (the intake stops: they go back to JetStream). */
  takeAll(): WaitingMessage<M>[] {
    return this.waiting.splice(0);
  }

  some(test: (message: WaitingMessage<M>) => boolean): boolean {
    return this.waiting.some(test);
  }

  forEach(each: (message: WaitingMessage<M>) => void): void {
    this.waiting.forEach(each);
  }

  private indexOfNext(among?: (message: WaitingMessage<M>) => boolean): number {
    // Tenants already found waiting: each is asked once per look, however many of its messages.
    let waitingTenants: Set<string> | undefined;
    for (let index = 0; index < this.waiting.length; index += 1) {
      const { tenantId } = this.waiting[index];
      if (among && !among(this.waiting[index])) {
        continue;
      }
      if (tenantId === null) {
        return index;
      }
      if (waitingTenants?.has(tenantId)) {
        continue;
      }
      if (this.tenantMayTake(tenantId)) {
        return index;
      }
      (waitingTenants ??= new Set()).add(tenantId);
    }
    return -1;
  }
}
