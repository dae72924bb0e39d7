/**
 * The rules of hot-tenant lanes (ADR 0032), as pure functions of what an engine knows: when a
 * tenant gets a lane, which messages the main intake may acknowledge without handling them, what
 * a closing lane puts back, when a lane closes and when it may be deleted. The lane manager
 * (lane-manager.ts) gathers the facts and acts on the answers.
 */

/** A lane as the registry (`intake_lanes`) holds it. */
export interface Lane {
  tenantId: string;
  /** The durable JetStream consumer of the lane, filtered on the tenant's subjects. */
  consumerName: string;
  /** The first stream sequence the lane covers: the main consumer had delivered the ones before. */
  startSeq: number;
  /** Set once the lane closes: the last stream sequence it covers; null while it is open. */
  endSeq: number | null;
  /** When the lane began to close (the database's clock); null while it is open. */
  closingSince: Date | null;
}

/** Tenant ids as the envelope schema has them: anything else never gets a lane (it is parked). */
const LANEABLE_TENANT = /^ten_[0-9a-z]{1,64}$/;

export interface HotTenantSettings {
  /** Lanes open at once at most; 0: no lanes. */
  maxLanes: number;
  /** The share of the main intake's recent messages that makes a tenant hot. */
  hotTenantShare: number;
  /** Recent messages needed to judge (a tenant is not hot for its first few). */
  minRecentMessages: number;
  /** How much of the last interval the main intake must have been busy (0 to 1). */
  minSaturation: number;
  /** Messages the main consumer must have waiting (not yet delivered) for a lane to help. */
  minBacklog: number;
  /**
   * Another tenant's message must have been taken at most this long ago: a tenant alone on the
   * engines crowds nobody out, and its lane would only cost a second look at its messages while
   * it closes.
   */
  otherTenantWithinMs: number;
}

/** The main intake over the last planning interval. */
export interface MainIntakeSnapshot {
  /**
   * The share of the interval it spent waiting on the messages in hand (their fan-out, or room
   * among them) rather than for new ones: 0 idle, 1 never idle.
   */
  saturation: number;
  /** The last messages it took into hand (a window of fixed size; fewer just after a start). */
  recentMessages: number;
  /** The tenant with the most of them, and how many. */
  busiestTenant: { tenantId: string; messages: number } | null;
  /** How long ago the intake took a message of a tenant other than the busiest; null: never. */
  otherTenantAgoMs: number | null;
}

/**
 * The tenant that crowds the others out of the main intake, or null: the intake was saturated
 * (it spent at least `minSaturation` of the interval busy with what it had in hand), it took at
 * least `minRecentMessages` lately, one tenant's were at least `hotTenantShare` of them, and
 * another tenant's message was taken within `otherTenantWithinMs` (there is someone to crowd out:
 * the others' events wait behind the burst in the stream, so they are not in the window).
 * Whether a lane would help (a backlog behind) is `decideLane`'s question, asked only then, since
 * it costs a request to JetStream.
 */
export function hotTenantOf(
  snapshot: MainIntakeSnapshot,
  settings: HotTenantSettings,
): string | null {
  const busiest = snapshot.busiestTenant;
  if (
    settings.maxLanes === 0 ||
    snapshot.saturation < settings.minSaturation ||
    busiest === null ||
    snapshot.recentMessages < settings.minRecentMessages ||
    busiest.messages / snapshot.recentMessages < settings.hotTenantShare ||
    !LANEABLE_TENANT.test(busiest.tenantId) ||
    snapshot.otherTenantAgoMs === null ||
    snapshot.otherTenantAgoMs > settings.otherTenantWithinMs
  ) {
    return null;
  }
  return busiest.tenantId;
}

export type LaneDecision =
  | { action: 'none' }
  /** A new lane from the main consumer's next undelivered sequence. */
  | { action: 'open'; tenantId: string }
  /** The tenant's closing lane stays open after all (it never stopped handling its messages). */
  | { action: 'reopen'; tenantId: string }
  /** The tenant is hot but every lane is taken: it stays in the main intake (counted). */
  | { action: 'refuse'; tenantId: string };

/**
 * What to do about a hot tenant, given the lanes and the main intake's backlog (messages not yet
 * delivered to any engine, and those it holds): a lane helps only when there is a backlog for the
 * others to wait behind.
 */
export function decideLane(
  tenantId: string,
  lanes: ReadonlyMap<string, Lane>,
  mainBacklog: number,
  settings: HotTenantSettings,
): LaneDecision {
  if (mainBacklog < settings.minBacklog) {
    return { action: 'none' };
  }
  const lane = lanes.get(tenantId);
  if (lane) {
    return lane.endSeq === null ? { action: 'none' } : { action: 'reopen', tenantId };
  }
  if (lanes.size >= settings.maxLanes) {
    return { action: 'refuse', tenantId };
  }
  return { action: 'open', tenantId };
}

/**
 * Whether the main intake may acknowledge a message without handling it: only when this engine
 * knows a lane covers it (from its start, and up to its end once it closes), and only while what
 * it knows of the lanes is recent enough. A lane is closed and deleted only after a grace period
 * longer than that age, so a view this recent cannot be missing a lane's end; an older one skips
 * nothing, and the worst that does is that the lane and the main intake both handle a message,
 * which idempotent ingest makes a duplicate at most, never a loss.
 */
export function mainIntakeSkips(
  lane: Lane | undefined,
  streamSeq: number,
  viewAgeMs: number,
  maxViewAgeMs: number,
): boolean {
  if (lane === undefined || viewAgeMs > maxViewAgeMs) {
    return false;
  }
  return streamSeq >= lane.startSeq && (lane.endSeq === null || streamSeq <= lane.endSeq);
}

/**
 * Whether a message the main intake pulled is one of a laned tenant's from before its lane
 * (ADR 0032): those pulled before the lane was known, which the main intake handles. They do not
 * hold up its next pull, nor count as it being behind: it takes a tenant's messages one at a
 * time, so the few of the hot tenant it held would otherwise hold up the other tenants' events
 * behind them in the stream, and the lanes would yield to them. Only for an open lane known
 * recently (a closing lane's tenant is the main intake's again).
 */
export function mainPullsPast(
  lane: Lane | undefined,
  streamSeq: number,
  viewAgeMs: number,
  maxViewAgeMs: number,
): boolean {
  return (
    lane !== undefined &&
    lane.endSeq === null &&
    viewAgeMs <= maxViewAgeMs &&
    streamSeq < lane.startSeq
  );
}

/**
 * Whether a closing lane puts a message back for later instead of handling it now: one after the
 * lane's end, delivered to the lane for the first time. The main intake handles it; the lane
 * handles it when it comes back, in case an engine that had not yet learned of the closing
 * skipped it (then ingest finds it handled, and sends nothing, when the main intake did). Every
 * message is handled by the lane in the end: a lane never skips.
 */
export function lanePutsBack(
  lane: Lane | undefined,
  streamSeq: number,
  deliveryCount: number,
): boolean {
  return lane?.endSeq != null && streamSeq > lane.endSeq && deliveryCount === 1;
}

/**
 * Whether the main intake puts a message back for a moment instead of taking it:
 * - while this engine opens a lane for the message's tenant: the lane starts after the main
 *   consumer's last delivered message, read meanwhile, and this engine must not handle any of the
 *   tenant's messages before it knows where (put back, they come back once it does: skipped if
 *   the lane covers them, handled if not), while every other tenant's go on;
 * - a laned tenant's message from before its lane (the main intake's to handle, as an engine had
 *   pulled it when the lane opened) while the tenant already holds `share` of the intake's
 *   deliveries: those few would otherwise fill the room that frees up, ahead of every other
 *   tenant's; they come back after a moment and are handled then.
 * Never otherwise: without a lane, putting back would only make the tenant's backlog go round.
 */
export function mainPutsBack(
  message: {
    lane: Lane | undefined;
    /** This engine is opening a lane for the message's tenant. */
    opening: boolean;
    streamSeq: number;
    tenantDeliveriesInHand: number;
  },
  maxDeliveries: number,
  share: number,
): boolean {
  if (message.opening) {
    return true;
  }
  return (
    message.lane !== undefined &&
    message.streamSeq < message.lane.startSeq &&
    message.tenantDeliveriesInHand >= share * maxDeliveries
  );
}

/** The lane's consumer as JetStream counts it. */
export interface LaneProgress {
  /** Messages of the tenant not yet delivered to the lane (its backlog). */
  pending: number;
  /** Delivered to an engine and not yet acknowledged (in hand, or put back for later). */
  ackPending: number;
}

/**
 * Since when a lane has had no backlog (its tenant's events are taken as they come), or null
 * while it has one: a lane without a backlog for a while closes.
 */
export function caughtUpSince(
  previous: number | null,
  progress: LaneProgress,
  nowMs: number,
): number | null {
  return progress.pending === 0 ? (previous ?? nowMs) : null;
}

/** Whether an open lane should close: it has had no backlog for `quietMs`. */
export function shouldCloseLane(
  lane: Lane,
  caughtUpSinceMs: number | null,
  nowMs: number,
  quietMs: number,
): boolean {
  return lane.endSeq === null && caughtUpSinceMs !== null && nowMs - caughtUpSinceMs >= quietMs;
}

/**
 * Whether a closing lane's consumer and row may go: the grace period is over (every engine has
 * since learned of the end, or stopped skipping) and the lane holds nothing, so every message up
 * to its end was handled.
 */
export function mayDeleteLane(
  lane: Lane,
  progress: LaneProgress,
  nowMs: number,
  graceMs: number,
): boolean {
  return (
    lane.closingSince !== null &&
    nowMs - lane.closingSince.getTime() >= graceMs &&
    progress.pending === 0 &&
    progress.ackPending === 0
  );
}

/**
 * How many deliveries a lane may have in hand: the engine's bound (DELIVERY_MAX_CONCURRENCY)
 * shared among the open lanes in proportion to their tenants' weights, the sum of the weights
 * counted as at least 1, so that a weight below 1 holds a lane back even alone, and one above 1
 * gets a lane more when lanes compete. At least 1. (What the lanes' attempts may hold of the
 * global slots while other work runs is ConcurrencyLimits' reserve, INTAKE_LANE_CONCURRENCY_SHARE.)
 */
export function laneDeliveryBudget(
  engineDeliveries: number,
  weight: number,
  weightsOfOpenLanes: readonly number[],
): number {
  const total = Math.max(
    1,
    weightsOfOpenLanes.reduce((sum, each) => sum + each, 0),
  );
  return Math.max(1, Math.floor((engineDeliveries * weight) / total));
}

/**
 * What the lanes may hold of the engine's global slots together while other attempts run or wait
 * (ConcurrencyLimits' reserve): INTAKE_LANE_CONCURRENCY_SHARE of DELIVERY_MAX_CONCURRENCY, at
 * least 1.
 */
export function laneSlotsOf(maxConcurrency: number, laneConcurrencyShare: number): number {
  return Math.max(1, Math.round(maxConcurrency * laneConcurrencyShare));
}
