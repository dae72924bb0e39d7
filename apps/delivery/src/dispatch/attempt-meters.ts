import { ATTEMPT_ERROR_KINDS, type AttemptResult } from '@svc/deliveries';
import type { DeliveryMetrics } from '../delivery-metrics';

type AttemptCounter = ReturnType<DeliveryMetrics['attempts']['labels']>;
type DurationHistogram = ReturnType<DeliveryMetrics['attemptDuration']['labels']>;

/**
 * The attempt metrics' series, bound once: prom-client hashes the labels of every `inc` and
 * `observe` given them, once or twice per delivery otherwise (issue 35). Every series exists from
 * the start anyway (delivery-metrics.ts zeroes them), so binding them all costs nothing more.
 */
export class AttemptMeters {
  private readonly succeeded: AttemptCounter;
  private readonly failed = new Map<string, AttemptCounter>();
  private readonly succeededDuration: DurationHistogram;
  private readonly failedDuration: DurationHistogram;

  constructor(private readonly metrics: Pick<DeliveryMetrics, 'attempts' | 'attemptDuration'>) {
    this.succeeded = metrics.attempts.labels({ outcome: 'succeeded', error_kind: 'none' });
    for (const kind of ATTEMPT_ERROR_KINDS) {
      this.failed.set(kind, metrics.attempts.labels({ outcome: 'failed', error_kind: kind }));
    }
    this.succeededDuration = metrics.attemptDuration.labels({ outcome: 'succeeded' });
    this.failedDuration = metrics.attemptDuration.labels({ outcome: 'failed' });
  }

  /** One recorded attempt: its outcome and error kind, and how long it took. */
  countAttempt(result: AttemptResult): void {
    if (result.succeeded) {
      this.succeeded.inc();
      this.succeededDuration.observe(result.latencyMs / 1000);
      return;
    }
    const kind = result.errorKind ?? 'none';
    const counter =
      this.failed.get(kind) ??
      this.metrics.attempts.labels({ outcome: 'failed', error_kind: kind });
    counter.inc();
    this.failedDuration.observe(result.latencyMs / 1000);
  }
}
