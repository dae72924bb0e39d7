/**
 * The answers (acknowledgements, put-backs) to messages the pulling loop passes over, sent
 * together at the end of the event loop's turn. The NATS client writes what it has queued at the
 * next microtask checkpoint, and the pulling loop awaits every message, so each answer sent at
 * once was a socket write of its own: with two engines passing over a laned tenant's backlog, a
 * quarter of an engine's time went to those writes (ADR 0032). Sent together, they go out in one.
 */
export class RepliesInOneWrite {
  private readonly queued: Array<() => void> = [];

  /** `reply` runs with the others queued in this turn of the event loop, after its I/O. */
  add(reply: () => void): void {
    if (this.queued.push(reply) === 1) {
      setImmediate(() => this.sendAll());
    }
  }

  /**
   * Sends every queued answer now. One that fails (the connection closing) is left: JetStream
   * hands its message out again after the ack wait, and it is passed over or handled then.
   */
  sendAll(): void {
    for (const reply of this.queued.splice(0)) {
      try {
        reply();
      } catch {
        // See above: a redelivery, never a loss.
      }
    }
  }

  get size(): number {
    return this.queued.length;
  }
}
