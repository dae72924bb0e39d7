import { AttemptAdmission, NO_RATE_LIMITS, RateLimitedEndpoint } from './endpoint-rate-limiter';

/**
 * Why an attempt did not run: its endpoint had no free slot in time, or its rate limit allows no
 * more in the current window (ADR 0028). Either way nothing was sent and no attempt is counted.
 */
export type SlotRefusal =
  | { ran: false; reason: 'endpoint_busy' }
  | { ran: false; reason: 'rate_limited'; retryInMs: number };

interface EndpointWaiter {
  resolve: (reserved: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * Bounds on attempts in flight: globally, so the engine's memory and sockets stay bounded, and
 * per endpoint, so that one slow endpoint can hold only its own share. A delivery meeting a full
 * endpoint waits a moment for a slot (a busy but healthy endpoint frees one within milliseconds)
 * and is otherwise put off to the schedule, so a slow endpoint's backlog never queues in memory.
 * The global bound is waited for, which slows intake down. Last comes the endpoint's rate limit
 * (`admission`), asked only with both slots held, right before sending, so that a token is spent
 * in the window it was taken for.
 */
export class ConcurrencyLimits {
  private readonly perEndpoint = new Map<string, number>();
  private readonly endpointWaiters = new Map<string, EndpointWaiter[]>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly globalMax: number,
    private readonly endpointMax: number,
    private readonly admission: AttemptAdmission = NO_RATE_LIMITS,
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

  /**
   * Takes one of the endpoint's slots, waiting up to `waitMs` for one to be released (first come,
   * first served); false when none came in time.
   */
  reserve(endpointId: string, waitMs: number): Promise<boolean> {
    if (this.tryReserve(endpointId)) {
      return Promise.resolve(true);
    }
    if (waitMs <= 0) {
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      const waiters = this.endpointWaiters.get(endpointId) ?? [];
      const waiter: EndpointWaiter = {
        resolve,
        timer: setTimeout(() => {
          const queue = this.endpointWaiters.get(endpointId) ?? [];
          queue.splice(queue.indexOf(waiter), 1);
          if (queue.length === 0) {
            this.endpointWaiters.delete(endpointId);
          }
          resolve(false);
        }, waitMs),
      };
      waiters.push(waiter);
      this.endpointWaiters.set(endpointId, waiters);
    });
  }

  /** Waits for a global slot; call after the endpoint's slot was reserved. */
  async acquireGlobal(): Promise<void> {
    if (this.running < this.globalMax) {
      this.running += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Gives back both slots of a finished attempt; the endpoint's slot goes to its next waiter. */
  release(endpointId: string): void {
    const waiters = this.endpointWaiters.get(endpointId);
    const heir = waiters?.shift();
    if (heir) {
      if (waiters!.length === 0) {
        this.endpointWaiters.delete(endpointId);
      }
      clearTimeout(heir.timer);
      heir.resolve(true);
    } else {
      const taken = (this.perEndpoint.get(endpointId) ?? 1) - 1;
      if (taken > 0) {
        this.perEndpoint.set(endpointId, taken);
      } else {
        this.perEndpoint.delete(endpointId);
      }
    }
    const next = this.waiting.shift();
    if (next) {
      next();
    } else {
      this.running -= 1;
    }
  }

  /**
   * The whole sequence of one attempt's slots: reserve one of the endpoint's (waiting up to
   * `waitMs`), then `beforeGlobal` (say, waiting for the database), then a global one, then the
   * endpoint's rate limit; run `work`, and release both slots, once, however `work` ends. `work`
   * gets the release to call early (when the HTTP exchange is over). A refusal when no endpoint
   * slot came in time or the rate limit says not now (with how long to wait).
   */
  async withSlot<T>(
    endpoint: RateLimitedEndpoint,
    waitMs: number,
    work: (release: () => void) => Promise<T>,
    beforeGlobal?: () => Promise<void>,
  ): Promise<{ ran: true; value: T } | SlotRefusal> {
    if (!(await this.reserve(endpoint.id, waitMs))) {
      return { ran: false, reason: 'endpoint_busy' };
    }
    const release = this.releaser(endpoint.id);
    try {
      await beforeGlobal?.();
      await this.acquireGlobal();
      const admission = await this.admission.admit(endpoint);
      if (!admission.admitted) {
        return { ran: false, reason: 'rate_limited', retryInMs: admission.retryInMs };
      }
      return { ran: true, value: await work(release) };
    } finally {
      release();
    }
  }

  /** A release of the endpoint's and the global slot that takes effect once, however often called. */
  releaser(endpointId: string): () => void {
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.release(endpointId);
      }
    };
  }

  get inFlight(): number {
    return this.running;
  }
}
