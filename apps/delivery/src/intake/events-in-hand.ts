/**
 * The events this engine is handling, by tenant and event id, across all its intakes (the main
 * one and the lanes). A second copy of an event taken while the first is still in hand (a lane's
 * opening or closing hands some messages to both intakes, ADR 0032; a message put back and
 * redelivered) waits until the first is handled: only then are its records, and its stored body,
 * there for the second copy's stored-body check to see. Without the wait both copies found no
 * body and both were sent (the SIGTERM fault scenario saw it once in three to six runs).
 */
export class EventsInHand {
  private readonly handling = new Map<string, Promise<void>>();

  /** Resolves when no other copy of the event is in hand; call what it returns when done. */
  async hold(tenantId: string, eventId: string): Promise<() => void> {
    const key = `${tenantId} ${eventId}`;
    for (let other = this.handling.get(key); other; other = this.handling.get(key)) {
      await other;
    }
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    this.handling.set(key, done);
    return () => {
      if (this.handling.get(key) === done) {
        this.handling.delete(key);
      }
      finished();
    };
  }

  get size(): number {
    return this.handling.size;
  }
}
