import { DeliveryInfo, gapCheckIntervalMs, SequenceGap, SequenceGaps } from '@svc/webhook-receiver';
import ms from 'ms';
import { CliError } from '../cli-context';

/** The --gap-window value in milliseconds: a duration such as 45m, 2h or 500ms. */
export function gapWindowMsOf(raw: string): number {
  const trimmed = raw.trim();
  const value = /^\d+(\.\d+)?\s*(ms|s|m|h|d)$/.test(trimmed) ? ms(trimmed as ms.StringValue) : NaN;
  if (!Number.isFinite(value) || value <= 0) {
    throw new CliError(`--gap-window "${raw}" is not a duration such as 45m, 2h or 90s`, 2);
  }
  return value;
}

const numbers = ({ first, last }: SequenceGap) =>
  first === last ? `${first}` : `${first} to ${last}`;

/** The warning a person acts on: what is missing, what it means, where to look. */
export function describeOverdueGap(gap: SequenceGap, windowMs: number, endpointId: string): string {
  return (
    `WARNING: X-SVC-Sequence ${numbers(gap)} missing for over ${ms(windowMs, { long: true })} ` +
    `(since ${new Date(gap.openSinceMs).toISOString()}): past the retry window, so abandoned or ` +
    `stuck; see GET /v1/deliveries?status=abandoned&endpoint_id=${endpointId} and replay it`
  );
}

export function overdueGapRecord(
  gap: SequenceGap,
  windowMs: number,
  endpointId: string,
): Record<string, unknown> {
  return {
    warning: 'sequence_gap',
    endpoint_id: endpointId,
    missing_from: gap.first,
    missing_to: gap.last,
    open_since: new Date(gap.openSinceMs).toISOString(),
    gap_window_ms: windowMs,
  };
}

/** A gap still within the window when the listener stops: worth knowing, not yet alarming. */
export function describeOpenGapAtExit(gap: SequenceGap, nowMs: number): string {
  return (
    `X-SVC-Sequence ${numbers(gap)} still missing at exit, for ${ms(nowMs - gap.openSinceMs)}: ` +
    'within the retry window, so probably still being retried'
  );
}

export function openGapAtExitRecord(gap: SequenceGap): Record<string, unknown> {
  return {
    open_gap: { missing_from: gap.first, missing_to: gap.last },
    open_since: new Date(gap.openSinceMs).toISOString(),
  };
}

/** Too many gaps at once to track them all: the lowest is reported now instead of later. */
export function describeGivenUpGap(gap: SequenceGap): string {
  return (
    `WARNING: X-SVC-Sequence ${numbers(gap)} missing and no longer tracked (too many gaps open ` +
    'at once); check GET /v1/deliveries?status=abandoned'
  );
}

export function givenUpGapRecord(gap: SequenceGap, endpointId: string): Record<string, unknown> {
  return {
    warning: 'sequence_gap_untracked',
    endpoint_id: endpointId,
    missing_from: gap.first,
    missing_to: gap.last,
    open_since: new Date(gap.openSinceMs).toISOString(),
  };
}

export type PrintLine = (line: string, record: Record<string, unknown>) => void;

/** What `svc listen` says about the X-SVC-Sequence numbers of the deliveries it verified. */
export class SequenceGapReport {
  private readonly gaps = new SequenceGaps();
  // Known once registered; no delivery arrives before that.
  private endpointId = '';

  constructor(
    private readonly windowMs: number,
    private readonly print: PrintLine,
    private readonly now: () => number = Date.now,
  ) {}

  forEndpoint(endpointId: string): void {
    this.endpointId = endpointId;
  }

  /** Only for verified deliveries: the header is not covered by the signature. */
  note(delivery: Pick<DeliveryInfo, 'sequence' | 'receivedAt'>): void {
    if (delivery.sequence === undefined) {
      return;
    }
    const arrival = this.gaps.record(delivery.sequence, delivery.receivedAt.getTime());
    if (arrival.kind === 'late') {
      this.print(`X-SVC-Sequence ${delivery.sequence} arrived after it was reported missing`, {
        late_sequence: delivery.sequence,
      });
    }
    if (arrival.givenUpGap) {
      this.print(
        describeGivenUpGap(arrival.givenUpGap),
        givenUpGapRecord(arrival.givenUpGap, this.endpointId),
      );
    }
  }

  reportOverdueGaps(): void {
    for (const gap of this.gaps.takeNewlyOverdueGaps(this.now(), this.windowMs)) {
      this.print(
        describeOverdueGap(gap, this.windowMs, this.endpointId),
        overdueGapRecord(gap, this.windowMs, this.endpointId),
      );
    }
  }

  /** Checks while listening; returns the function that stops the checks. */
  checkPeriodically(): () => void {
    const checks = setInterval(() => this.reportOverdueGaps(), gapCheckIntervalMs(this.windowMs));
    // A pending check must not keep the process alive once the listener stops.
    checks.unref();
    return () => clearInterval(checks);
  }

  /** The last check, then the gaps still within the window, so that a person sees them too. */
  reportAtExit(): void {
    this.reportOverdueGaps();
    const stoppedAt = this.now();
    for (const gap of this.gaps.openGaps()) {
      if (stoppedAt - gap.openSinceMs <= this.windowMs) {
        this.print(describeOpenGapAtExit(gap, stoppedAt), openGapAtExitRecord(gap));
      }
    }
  }
}
