import type { RecordingGate } from '../ports';
import { AttemptOrder, AttemptReceipt, AttemptRunner } from './attempt-runner';
import { ConcurrencyLimits, SlotClass } from './concurrency-limits';

/** What became of an attempt the dispatcher was asked to make. */
export type DispatchOutcome =
  | { kind: 'attempted'; receipt: AttemptReceipt }
  /** The endpoint had no free slot within the wait: nothing was sent, no attempt used. */
  | { kind: 'busy' }
  /** The endpoint's rate limit allows no more in this window (ADR 0028): nothing was sent. */
  | { kind: 'rate-limited'; retryInMs: number };

export interface DispatchTerms {
  /** How long to wait for one of the endpoint's slots before answering `busy`. */
  slotWaitMs: number;
  /** Whose global slot the attempt takes (a lane's, ADR 0032, or the others'). */
  slotClass?: SlotClass;
  /**
   * Called when the wait for the endpoint's slot begins (once records can be written); what it
   * returns is called when that wait is over, found or not.
   */
  beginSlotWait?: () => () => void;
}

/**
 * Makes one attempt within the engine's bounds: the endpoint's slot, then the global one, then
 * the endpoint's rate limit, then the POST and its record (AttemptRunner). The intake's first
 * attempts and the scheduler's retries go through here alike; what each does with a `busy` or
 * `rate-limited` answer is its own (a first attempt is recorded as deferred, a claimed retry is
 * postponed).
 */
export class Dispatcher {
  constructor(
    private readonly limits: ConcurrencyLimits,
    private readonly runner: AttemptRunner,
    private readonly recording: Pick<RecordingGate, 'whenHealthy'>,
  ) {}

  async dispatch(order: AttemptOrder, terms: DispatchTerms): Promise<DispatchOutcome> {
    // No attempt starts while its record could not be written (it would be sent again later).
    await this.recording.whenHealthy();
    const waitOver = terms.beginSlotWait?.() ?? (() => undefined);
    try {
      const attempted = await this.limits.withSlot(
        order.endpoint,
        terms.slotWaitMs,
        (release) => this.runner.run(order, release),
        // No global slot is taken while the database is away (AttemptRunner looks again last).
        () => {
          waitOver();
          return this.recording.whenHealthy();
        },
        terms.slotClass,
      );
      if (attempted.ran) {
        return { kind: 'attempted', receipt: attempted.value };
      }
      return attempted.reason === 'rate_limited'
        ? { kind: 'rate-limited', retryInMs: attempted.retryInMs }
        : { kind: 'busy' };
    } finally {
      waitOver();
    }
  }
}
