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
 * Whose attempt takes a global slot: the main intake's and the scheduler's (`main`), or a
 * hot tenant's lane's (`lane`, ADR 0032). While main attempts run or wait, lanes together hold at
 * most their part of the global bound (`laneMax`), and a freed slot goes to a waiting main
 * attempt first, so that a hot tenant's lane never takes the slots every other tenant's events
 * need; while none do, lanes may use every slot (a lone tenant is not slowed by the reserve), and
 * a main attempt that comes then waits for the first slot freed.
 */
export type SlotClass = 'main' | 'lane';

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
  private lanesRunning = 0;
  private readonly waiting: Record<SlotClass, (() => void)[]> = { main: [], lane: [] };

  /** `laneMax`: global slots the lanes' attempts may hold together while main ones run or wait. */
  constructor(
    private readonly globalMax: number,
    private readonly endpointMax: number,
    private readonly admission: AttemptAdmission = NO_RATE_LIMITS,
    private readonly laneMax: number = globalMax,
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
  async acquireGlobal(slotClass: SlotClass = 'main'): Promise<void> {
    if (this.waiting[slotClass].length === 0 && this.mayTake(slotClass)) {
      this.take(slotClass);
      return;
    }
    await new Promise<void>((resolve) => this.waiting[slotClass].push(resolve));
  }

  /**
   * The endpoints whose every slot in this engine is taken now: an attempt of theirs would only
   * be put off again, so the retry scheduler does not claim theirs (issue 35).
   */
  fullEndpoints(): string[] {
    const full: string[] = [];
    for (const [endpointId, taken] of this.perEndpoint) {
      if (taken >= this.endpointMax) {
        full.push(endpointId);
      }
    }
    return full;
  }

  /** Gives back both slots of a finished attempt; the endpoint's slot goes to its next waiter. */
  release(endpointId: string, slotClass: SlotClass = 'main'): void {
    this.releaseEndpoint(endpointId);
    this.releaseGlobal(slotClass);
  }

  private releaseEndpoint(endpointId: string): void {
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
  }

  private releaseGlobal(slotClass: SlotClass): void {
    this.running -= 1;
    if (slotClass === 'lane') {
      this.lanesRunning -= 1;
    }
    // Main attempts first: they are every tenant's but the hot ones', and the lanes' bound
    // keeps room for them only if a freed slot does not go to a lane while they wait.
    for (const next of ['main', 'lane'] as const) {
      while (this.waiting[next].length > 0 && this.mayTake(next)) {
        this.take(next);
        this.waiting[next].shift()!();
      }
    }
  }

  private mayTake(slotClass: SlotClass): boolean {
    if (this.running >= this.globalMax) {
      return false;
    }
    if (slotClass === 'main' || this.lanesRunning < this.laneMax) {
      return true;
    }
    const mainRunning = this.running - this.lanesRunning;
    return mainRunning === 0 && this.waiting.main.length === 0;
  }

  private take(slotClass: SlotClass): void {
    this.running += 1;
    if (slotClass === 'lane') {
      this.lanesRunning += 1;
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
    slotClass: SlotClass = 'main',
  ): Promise<{ ran: true; value: T } | SlotRefusal> {
    if (!(await this.reserve(endpoint.id, waitMs))) {
      return { ran: false, reason: 'endpoint_busy' };
    }
    let globalHeld = false;
    let released = false;
    // Once, however often called; the global slot only if it was taken (beforeGlobal may throw).
    const release = () => {
      if (!released) {
        released = true;
        this.releaseEndpoint(endpoint.id);
        if (globalHeld) {
          this.releaseGlobal(slotClass);
        }
      }
    };
    try {
      await beforeGlobal?.();
      await this.acquireGlobal(slotClass);
      globalHeld = true;
      const admission = await this.admission.admit(endpoint);
      if (!admission.admitted) {
        return { ran: false, reason: 'rate_limited', retryInMs: admission.retryInMs };
      }
      return { ran: true, value: await work(release) };
    } finally {
      release();
    }
  }

  get inFlight(): number {
    return this.running;
  }

  /** Global slots the lanes' attempts hold. */
  get lanesInFlight(): number {
    return this.lanesRunning;
  }
}
