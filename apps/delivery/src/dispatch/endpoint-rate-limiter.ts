import { Logger } from '@nestjs/common';

/**
 * The per-endpoint rate limit (ADR 0028): at most `rateLimitPerSecond` deliveries to an endpoint
 * in each one-second window of the database's clock, across every engine. The count of each
 * window lives in one PostgreSQL row that every engine adds to; an engine takes tokens a few at a
 * time in one atomic upsert and spends them locally until its window ends, so the database sees
 * a handful of queries per endpoint and second, not one per delivery. Endpoints without a limit
 * cost nothing: no query, no state.
 */

/** An endpoint as the limiter sees it. */
export interface RateLimitedEndpoint {
  id: string;
  /** null: no limit. */
  rateLimitPerSecond: number | null;
}

/** Whether an attempt may be sent now, or how long it is to wait. */
export type Admission = { admitted: true } | { admitted: false; retryInMs: number };

export const ADMITTED: Admission = Object.freeze({ admitted: true });

/** Decides whether an attempt to an endpoint may go now. */
export interface AttemptAdmission {
  admit(endpoint: RateLimitedEndpoint): Promise<Admission>;
}

/** Admits everything: for parts built without a database (unit tests). */
export const NO_RATE_LIMITS: AttemptAdmission = {
  admit: () => Promise.resolve(ADMITTED),
};

const WINDOW_MS = 1000;
/** Tokens that arrive after their window ended are void; an attempt asks again at most this often. */
const MAX_REFILLS_PER_ATTEMPT = 3;

/** The answer of the shared counter to one request of `asked` tokens. */
export interface WindowTake {
  /** The window (database clock, epoch ms) the request counted in. */
  windowStartMs: number;
  /** The window's count after the request, the tokens asked included; null when it was full already. */
  takenAfter: number | null;
  /** How much of the window was left when the database served the request. */
  remainingMs: number;
}

/** The shared per-window counts (PostgreSQL in the engine; a fake in unit tests). */
export interface RateWindows {
  take(endpointId: string, asked: number, limit: number): Promise<WindowTake>;
  /** Deletes the windows that ended more than `olderThanMs` ago. */
  sweep(olderThanMs: number): Promise<void>;
}

export interface RateLimitTuning {
  /** An engine asks for at most limit / batchShare tokens at once (at least one). */
  batchShare: number;
  /** A delivery refused in a window is put off at most this far (the backlog is spread over windows). */
  maxPutOffMs: number;
  /** Added to a put-off: the engine's estimate of the window's end runs early by a query's latency. */
  nextWindowMarginMs: number;
  /** How often an engine that uses the limiter deletes old windows. */
  sweepIntervalMs: number;
  /** Windows kept this long after they end (only for looking into; nothing reads them). */
  keepWindowsMs: number;
}

/** How many tokens one query asks for: a share of the limit, so one engine cannot hoard a window. */
export function batchSizeFor(limit: number, batchShare: number): number {
  return Math.max(1, Math.min(limit, Math.floor(limit / batchShare)));
}

/**
 * The tokens a request of `asked` got: the counter went from `takenAfter - asked` to
 * `takenAfter`, and only what stayed within the limit is granted. The counter may pass the limit
 * (it counts what was asked); a full window answers no row, that is null.
 */
export function tokensGranted(asked: number, takenAfter: number | null, limit: number): number {
  if (takenAfter === null) {
    return 0;
  }
  const before = takenAfter - asked;
  return Math.max(0, Math.min(asked, limit - before));
}

/**
 * How long a refused delivery waits: until the window ends, then one more window for each
 * `limit` deliveries this engine refused before it in this window, so that a backlog comes back
 * spread over the windows that can take it instead of all at the next one; at most `maxMs`, so
 * that a raised or removed limit is felt soon.
 */
export function putOffMs(
  untilWindowEndMs: number,
  refusedBefore: number,
  limit: number,
  maxMs: number,
): number {
  const windowsAhead = Math.floor(refusedBefore / limit);
  return Math.min(maxMs, Math.max(0, untilWindowEndMs) + windowsAhead * WINDOW_MS);
}

/** What this engine knows of one endpoint's current window. */
interface EndpointWindow {
  /** The database's window the tokens belong to (epoch ms); null before the first answer. */
  startMs: number | null;
  /** Local time by which the window has surely ended: tokens are spent only before it. */
  endsAt: number;
  tokens: number;
  /** The shared count reached the limit: refuse without asking until the window ends. */
  full: boolean;
  /** Refused by this engine in this window, to spread the put-off deliveries. */
  refused: number;
  /** A request for tokens in flight: concurrent attempts wait for it rather than ask too. */
  refill: Promise<void> | null;
}

export class EndpointRateLimiter implements AttemptAdmission {
  private readonly logger = new Logger('EndpointRateLimiter');
  private readonly windows = new Map<string, EndpointWindow>();
  private lastSweep = 0;

  constructor(
    private readonly counts: RateWindows,
    private readonly tuning: RateLimitTuning,
    private readonly now: () => number = Date.now,
  ) {}

  admit(endpoint: RateLimitedEndpoint): Promise<Admission> {
    const limit = endpoint.rateLimitPerSecond;
    return limit === null ? Promise.resolve(ADMITTED) : this.admitLimited(endpoint.id, limit);
  }

  private async admitLimited(endpointId: string, limit: number): Promise<Admission> {
    for (let refills = 0; ; refills += 1) {
      const window = this.currentWindow(endpointId);
      if (window.tokens > 0) {
        window.tokens -= 1;
        return ADMITTED;
      }
      if (window.full) {
        const retryInMs =
          putOffMs(window.endsAt - this.now(), window.refused, limit, this.tuning.maxPutOffMs) +
          this.tuning.nextWindowMarginMs;
        window.refused += 1;
        return { admitted: false, retryInMs };
      }
      if (refills === MAX_REFILLS_PER_ATTEMPT) {
        // Every answer came after its window had ended: the database is too slow for one-second
        // windows just now. Waiting a window is safer than sending unaccounted.
        return { admitted: false, retryInMs: WINDOW_MS };
      }
      window.refill ??= this.refill(window, endpointId, limit).finally(() => {
        window.refill = null;
      });
      await window.refill;
    }
  }

  /** The endpoint's window, emptied once it has ended (unless an answer for the next is coming). */
  private currentWindow(endpointId: string): EndpointWindow {
    let window = this.windows.get(endpointId);
    if (!window) {
      window = { startMs: null, endsAt: 0, tokens: 0, full: false, refused: 0, refill: null };
      this.windows.set(endpointId, window);
    } else if (window.refill === null && this.now() >= window.endsAt) {
      window.tokens = 0;
      window.full = false;
      window.refused = 0;
    }
    return window;
  }

  private async refill(window: EndpointWindow, endpointId: string, limit: number): Promise<void> {
    const asked = batchSizeFor(limit, this.tuning.batchShare);
    // The database served the request after it was sent: counting the window's rest from the
    // sending makes the local end early, never late.
    const askedAt = this.now();
    const answer = await this.counts.take(endpointId, asked, limit);
    const endsAt = askedAt + answer.remainingMs;
    if (answer.windowStartMs !== window.startMs) {
      window.startMs = answer.windowStartMs;
      window.endsAt = endsAt;
      window.tokens = 0;
      window.full = false;
      window.refused = 0;
    } else {
      window.endsAt = Math.min(window.endsAt, endsAt);
    }
    window.tokens += tokensGranted(asked, answer.takenAfter, limit);
    window.full = answer.takenAfter === null || answer.takenAfter >= limit;
    this.sweepNowAndThen();
  }

  /** Old windows go, from the engines that use the limiter only, at most once per interval each. */
  private sweepNowAndThen(): void {
    const now = this.now();
    if (now - this.lastSweep < this.tuning.sweepIntervalMs) {
      return;
    }
    this.lastSweep = now;
    for (const [endpointId, window] of this.windows) {
      if (window.refill === null && now >= window.endsAt + WINDOW_MS) {
        this.windows.delete(endpointId);
      }
    }
    this.counts.sweep(this.tuning.keepWindowsMs).catch((error: unknown) => {
      // Harmless: the next sweep deletes them, and nothing reads old windows.
      this.logger.warn(`cannot delete old rate-limit windows: ${(error as Error).message}`);
    });
  }
}
