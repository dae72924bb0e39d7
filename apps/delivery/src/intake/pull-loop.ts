import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IntakeMessage, MessageSource, PulledBatch } from '../ports';

/**
 * How long the loop passes over messages before it lets the event loop run other work: a pull
 * of a thousand skipped messages would otherwise hold it for tens of milliseconds.
 */
const SKIPPING_SLICE_MS = 10;

export interface PullSizing {
  /** Messages asked of JetStream in one pull at most. */
  pullBatch: number;
  /** The same while most of the last pull was passed over (see `PullLoop`). */
  skipPullBatch: number;
  /** How long a pull waits on the server for messages when there are none. */
  pullExpiresMs: number;
  /** After a pull failed (NATS away, the consumer gone), the next one waits this long. */
  retryFailedPullMs: number;
}

/**
 * Pulls messages from a source for as long as it runs, and knows nothing of tenants or
 * deliveries. Each pull waits until `mayPull` gives the room in hand; it asks for as many as there
 * is room for, at most `pullBatch` (JetStream's `consume()` would keep pulling as messages arrive,
 * whether or not they can be handled, up to the consumer's max ack pending), or `skipPullBatch`
 * while the last pull was mostly passed over, so that the main intake passes a laned tenant's
 * backlog in few round trips however busy the engine is (ADR 0032).
 */
export class PullLoop {
  private readonly logger = new Logger('PullLoop');
  private batch: PulledBatch | undefined;
  private stopping = false;
  private readonly stopped = new AbortController();

  constructor(
    private readonly source: MessageSource,
    private readonly sizing: PullSizing,
    /** Whether a failed pull is worth a warning, or only a debug line. */
    private readonly warnOnFailure: boolean,
  ) {}

  /**
   * Runs until `stop`. `sort` gets every message pulled and says whether it was passed over
   * (acknowledged or put back unhandled) rather than left to be taken.
   */
  async run(
    mayPull: () => Promise<number>,
    sort: (message: IntakeMessage) => 'passed-over' | 'kept',
  ): Promise<void> {
    let lastPullMostlyPassedOver = false;
    while (!this.stopping) {
      const room = await mayPull();
      if (this.stopping) {
        break;
      }
      const size = lastPullMostlyPassedOver
        ? this.sizing.skipPullBatch
        : Math.max(1, Math.min(this.sizing.pullBatch, room));
      const counts = await this.pullOnce(size, sort);
      lastPullMostlyPassedOver = counts.passedOver * 2 > counts.pulled;
    }
  }

  /** Ends the pull going on, if any; `run` returns once it has. */
  stop(): void {
    this.stopping = true;
    this.stopped.abort();
    this.batch?.stop();
  }

  private async pullOnce(
    size: number,
    sort: (message: IntakeMessage) => 'passed-over' | 'kept',
  ): Promise<{ pulled: number; passedOver: number }> {
    const counts = { pulled: 0, passedOver: 0 };
    let sliceStartedAt = performance.now();
    try {
      this.batch = await this.source.fetch(size, this.sizing.pullExpiresMs);
      for await (const message of this.batch) {
        counts.pulled += 1;
        if (sort(message) === 'passed-over') {
          counts.passedOver += 1;
          // Passed-over messages are handled without a pause: let the rest of the engine (the
          // other tenants' attempts) in between, every SKIPPING_SLICE_MS.
          if (performance.now() - sliceStartedAt >= SKIPPING_SLICE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            sliceStartedAt = performance.now();
          }
        }
      }
    } catch (error) {
      if (!this.stopping) {
        // A lane's consumer is deleted when the lane closes, before every engine has stopped
        // pulling from it: not worth a warning (the main intake's failures are).
        const failure = `pulling from JetStream failed (${(error as Error).message}); trying again in ${this.sizing.retryFailedPullMs} ms`;
        if (this.warnOnFailure) {
          this.logger.warn(failure);
        } else {
          this.logger.debug(failure);
        }
        await sleep(this.sizing.retryFailedPullMs, undefined, {
          signal: this.stopped.signal,
        }).catch(() => undefined);
      }
    } finally {
      this.batch = undefined;
    }
    return counts;
  }
}
