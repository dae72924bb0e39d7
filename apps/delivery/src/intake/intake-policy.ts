import type { IntakeKind } from '../delivery-metrics';
import type { IntakeSource } from '../operational-events/intake-source';

/** A message an intake pulled, as its policy sees it. */
export interface PulledMessage {
  /** The tenant its subject names; null when the subject names none. */
  tenantId: string | null;
  streamSeq: number;
  /** 1 the first time JetStream delivers it. */
  deliveryCount: number;
  /** Deliveries of the tenant's messages this intake has in hand. */
  tenantDeliveriesInHand: number;
}

/** What an intake does with a message it just pulled. */
export type PullDecision =
  | { action: 'take' }
  /** Acknowledged unhandled: a hot tenant's lane covers it (ADR 0032). */
  | { action: 'skip' }
  /** Handed back to JetStream, to come again after `delayMs`. */
  | { action: 'put-back'; delayMs: number };

const TAKE: PullDecision = { action: 'take' };

/**
 * How one intake role reads its consumer (ADR 0030, ADR 0032): the main intake, a hot tenant's
 * lane, or the operational events. Everything that differs between the roles is here; the
 * intake itself is the same for all three.
 */
export interface IntakePolicy {
  readonly kind: IntakeKind;
  /** Whose subjects it reads: the platform's events or the service's own operational ones. */
  readonly source: IntakeSource;
  /** Whether a failed pull is worth a warning (a closing lane's consumer goes away: it is not). */
  readonly warnOnFailedPull: boolean;
  /** Take, skip or put back a message just pulled. */
  sort(pulled: PulledMessage): PullDecision;
  /** Whether a pulled message, until taken, holds up the next pull. */
  holdsUpPull(tenantId: string | null, streamSeq: number): boolean;
  /** Whether a pulled message not yet taken is now covered by a lane (then it is skipped). */
  coveredNow(tenantId: string, streamSeq: number): boolean;
  /** False while the intake takes nothing new (it polls again every `yieldPollMs`). */
  mayTake(): boolean;
}

/** The main intake's questions to the lanes this engine knows of (lanes/lane-view.ts). */
export interface LaneAnswers {
  /** Is the message covered by a lane (acknowledged unhandled by the main intake)? */
  covers(tenantId: string, streamSeq: number): boolean;
  /** Is it a laned tenant's from before its lane (it does not hold up the next pull)? */
  pullsPast(tenantId: string, streamSeq: number): boolean;
  /** How long the main intake puts it back for, or null to take it. */
  mainPutBackMs(pulled: PulledMessage): number | null;
  /** How long a tenant's lane puts it back for (past a closing lane's end), or null. */
  lanePutBackMs(tenantId: string, pulled: PulledMessage): number | null;
}

/** The main intake: every tenant's events, less what their lanes cover. */
export function mainIntakePolicy(lanes: LaneAnswers): IntakePolicy {
  return {
    kind: 'main',
    source: 'platform',
    warnOnFailedPull: true,
    sort(pulled) {
      const { tenantId, streamSeq } = pulled;
      if (tenantId !== null && lanes.covers(tenantId, streamSeq)) {
        return { action: 'skip' };
      }
      const delayMs = lanes.mainPutBackMs(pulled);
      return delayMs === null ? TAKE : { action: 'put-back', delayMs };
    },
    holdsUpPull: (tenantId, streamSeq) =>
      tenantId === null || !lanes.pullsPast(tenantId, streamSeq),
    coveredNow: (tenantId, streamSeq) => lanes.covers(tenantId, streamSeq),
    mayTake: () => true,
  };
}

/**
 * A hot tenant's lane: its consumer is filtered on the tenant's subjects; it puts back what comes
 * after a closing lane's end, and yields while `mainIsBehind` says the main intake (every other
 * tenant's events) lags.
 */
export function laneIntakePolicy(
  tenantId: string,
  lanes: Pick<LaneAnswers, 'lanePutBackMs'>,
  mainIsBehind: () => boolean,
): IntakePolicy {
  return {
    kind: 'lane',
    source: 'platform',
    warnOnFailedPull: false,
    sort(pulled) {
      const delayMs = lanes.lanePutBackMs(tenantId, pulled);
      return delayMs === null ? TAKE : { action: 'put-back', delayMs };
    },
    holdsUpPull: () => true,
    coveredNow: () => false,
    mayTake: () => !mainIsBehind(),
  };
}

/** The service's own operational events (ADR 0030): no lanes. */
export function operationalIntakePolicy(): IntakePolicy {
  return {
    kind: 'operational',
    source: 'operational',
    warnOnFailedPull: true,
    sort: () => TAKE,
    holdsUpPull: () => true,
    coveredNow: () => false,
    mayTake: () => true,
  };
}
