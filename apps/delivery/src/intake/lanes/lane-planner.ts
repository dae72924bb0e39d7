import type { Clock } from '../../ports';
import type { MainIntakeGauges } from './lane-ports';
import { decideLane, HotTenantSettings, hotTenantOf, Lane, LaneDecision } from './lane-rules';

const NOTHING: LaneDecision = { action: 'none' };

/**
 * Whether a tenant crowds the others out of the main intake now (ADR 0032): the main intake's
 * saturation over the last planning interval and the tenants it took lately (`hotTenantOf`), and
 * only then the main consumer's backlog (a request to JetStream, at most every
 * `backlogReadIntervalMs`), for `decideLane` to say whether to open, reopen or refuse a lane.
 */
export class LanePlanner {
  private last = { atMs: 0, waitedMs: 0 };
  private lastBacklogReadMs = -Infinity;

  constructor(
    private readonly settings: HotTenantSettings,
    private readonly backlogReadIntervalMs: number,
    private readonly clock: Clock,
  ) {}

  /** Planning starts: saturation counts from now. */
  begin(main: MainIntakeGauges): void {
    this.last = { atMs: this.clock.now(), waitedMs: main.waitedMs };
  }

  /** `mainPending`: messages the main consumer has not yet delivered to any engine. */
  async plan(
    main: MainIntakeGauges,
    lanes: ReadonlyMap<string, Lane>,
    mainPending: () => Promise<number>,
  ): Promise<LaneDecision> {
    const now = this.clock.now();
    const waitedMs = main.waitedMs;
    const saturation =
      now > this.last.atMs ? (waitedMs - this.last.waitedMs) / (now - this.last.atMs) : 0;
    this.last = { atMs: now, waitedMs };
    const busiestTenant = main.recent.busiest();
    const hot = hotTenantOf(
      {
        saturation,
        recentMessages: main.recent.size,
        busiestTenant,
        otherTenantAgoMs: busiestTenant
          ? main.recent.otherTenantAgoMs(busiestTenant.tenantId)
          : null,
      },
      this.settings,
    );
    if (hot === null || now - this.lastBacklogReadMs < this.backlogReadIntervalMs) {
      return NOTHING;
    }
    this.lastBacklogReadMs = now;
    // What the others wait behind: the messages not yet delivered, and those the main intake
    // holds, in hand or pulled (a burst fills it before anything is pending).
    const backlog = (await mainPending()) + main.messagesHeld;
    return decideLane(hot, lanes, backlog, this.settings);
  }
}
