/**
 * Bounds on attempts in flight: globally, so the engine's memory and sockets stay bounded, and
 * per endpoint, so that one slow endpoint can hold only its own share. Per-endpoint capacity is
 * taken without waiting (a busy endpoint's deliveries are put off to the schedule instead of
 * queueing in memory); the global bound is waited for, which slows intake down.
 */
export class ConcurrencyLimits {
  private readonly perEndpoint = new Map<string, number>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly globalMax: number,
    private readonly endpointMax: number,
  ) {}

  /** Takes one of the endpoint's slots, or returns false at once when it has none free. */
  tryReserve(endpointId: string): boolean {
    const taken = this.perEndpoint.get(endpointId) ?? 0;
    if (taken >= this.endpointMax) {
      return false;
    }
    this.perEndpoint.set(endpointId, taken + 1);
    return true;
  }

  /** Waits for a global slot; call after tryReserve succeeded. */
  async acquireGlobal(): Promise<void> {
    if (this.running < this.globalMax) {
      this.running += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Gives back both slots of a finished attempt. */
  release(endpointId: string): void {
    const taken = (this.perEndpoint.get(endpointId) ?? 1) - 1;
    if (taken > 0) {
      this.perEndpoint.set(endpointId, taken);
    } else {
      this.perEndpoint.delete(endpointId);
    }
    const next = this.waiting.shift();
    if (next) {
      next();
    } else {
      this.running -= 1;
    }
  }

  get inFlight(): number {
    return this.running;
  }
}
