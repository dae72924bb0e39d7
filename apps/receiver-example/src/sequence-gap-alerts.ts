import { DeliveryInfo, gapCheckIntervalMs, SequenceGap, SequenceGaps } from '@svc/webhook-receiver';

export type Log = (level: 'info' | 'warn' | 'error', msg: string, fields?: object) => void;

const range = (gap: SequenceGap) => ({
  missing_from: gap.first,
  missing_to: gap.last,
  open_since: new Date(gap.openSinceMs).toISOString(),
});

/**
 * Logs, at warn, each X-SVC-Sequence number still missing once the window has passed since a
 * later one arrived: the delivery was abandoned (or is stuck), and someone should look it up
 * (`GET /v1/deliveries?status=abandoned`) and replay it. Gaps younger than that are deliveries
 * still being retried, and are not worth a line. A production receiver would raise an alert here.
 */
export class SequenceGapAlerts {
  private readonly gaps = new SequenceGaps();

  constructor(
    private readonly windowMs: number,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
  ) {}

  /** Gaps open now, overdue or not: a figure for a health or metrics route. */
  get openGapCount(): number {
    return this.gaps.openGaps().length;
  }

  /** Only for verified deliveries: the header is not covered by the signature. */
  note(delivery: Pick<DeliveryInfo, 'sequence' | 'receivedAt'>): void {
    if (delivery.sequence === undefined) {
      return;
    }
    const arrival = this.gaps.record(delivery.sequence, delivery.receivedAt.getTime());
    if (arrival.kind === 'late') {
      this.log('info', 'a delivery reported missing arrived', { sequence: delivery.sequence });
    }
    if (arrival.givenUpGap) {
      this.log(
        'warn',
        'X-SVC-Sequence numbers missing, too many gaps open to go on tracking them',
        {
          ...range(arrival.givenUpGap),
          open_gaps: this.openGapCount,
        },
      );
    }
  }

  check(): void {
    for (const gap of this.gaps.takeNewlyOverdueGaps(this.now(), this.windowMs)) {
      this.log('warn', 'X-SVC-Sequence numbers missing past the retry window', {
        ...range(gap),
        gap_window_ms: this.windowMs,
        open_gaps: this.openGapCount,
        next_step: 'find the delivery in GET /v1/deliveries?status=abandoned and replay it',
      });
    }
  }

  /** Checks until the returned function is called; never keeps the process alive by itself. */
  checkPeriodically(): () => void {
    const checks = setInterval(() => this.check(), gapCheckIntervalMs(this.windowMs));
    checks.unref();
    return () => clearInterval(checks);
  }
}
