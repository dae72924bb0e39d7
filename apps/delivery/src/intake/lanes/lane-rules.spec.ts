import {
  caughtUpSince,
  decideLane,
  HotTenantSettings,
  hotTenantOf,
  Lane,
  laneDeliveryBudget,
  lanePutsBack,
  mainIntakeSkips,
  MainIntakeSnapshot,
  mainPullsPast,
  mainPutsBack,
  mayDeleteLane,
  shouldCloseLane,
} from './lane-rules';

const settings: HotTenantSettings = {
  maxLanes: 2,
  hotTenantShare: 0.5,
  minRecentMessages: 16,
  minSaturation: 0.5,
  minBacklog: 100,
  otherTenantWithinMs: 60_000,
};

const saturatedBy = (tenantId: string, messages: number, recent = 100): MainIntakeSnapshot => ({
  saturation: 0.9,
  recentMessages: recent,
  busiestTenant: { tenantId, messages },
  otherTenantAgoMs: 5_000,
});

const openLane = (tenantId: string, startSeq = 1000): Lane => ({
  tenantId,
  consumerName: `svc-delivery-lane-${tenantId}-${startSeq}`,
  startSeq,
  endSeq: null,
  closingSince: null,
});

const closingLane = (tenantId: string, startSeq: number, endSeq: number, since: Date): Lane => ({
  ...openLane(tenantId, startSeq),
  endSeq,
  closingSince: since,
});

describe('hotTenantOf: which tenant crowds the others out of the main intake', () => {
  it("given a saturated intake where half the last messages were one tenant's, names that tenant", () => {
    expect(hotTenantOf(saturatedBy('ten_a', 50), settings)).toBe('ten_a');
  });

  it('given a saturated intake shared by many tenants, names none', () => {
    expect(hotTenantOf(saturatedBy('ten_a', 49), settings)).toBeNull();
  });

  it('given an intake that mostly had room, names none however busy one tenant is', () => {
    expect(hotTenantOf({ ...saturatedBy('ten_a', 100), saturation: 0.4 }, settings)).toBeNull();
  });

  it('given lanes turned off, or an intake that took nothing yet, names none', () => {
    expect(hotTenantOf(saturatedBy('ten_a', 100), { ...settings, maxLanes: 0 })).toBeNull();
    expect(
      hotTenantOf(
        { saturation: 1, recentMessages: 0, busiestTenant: null, otherTenantAgoMs: null },
        settings,
      ),
    ).toBe(null);
  });

  it('given a tenant alone on the engines (nobody else seen, or not within the setting), names none', () => {
    expect(hotTenantOf({ ...saturatedBy('ten_a', 100), otherTenantAgoMs: null }, settings)).toBe(
      null,
    );
    expect(
      hotTenantOf({ ...saturatedBy('ten_a', 100), otherTenantAgoMs: 60_001 }, settings),
    ).toBeNull();
    expect(hotTenantOf({ ...saturatedBy('ten_a', 100), otherTenantAgoMs: 60_000 }, settings)).toBe(
      'ten_a',
    );
  });

  it('given too few messages taken lately to judge, names none (one slow message is not a burst)', () => {
    expect(hotTenantOf(saturatedBy('ten_a', 15, 15), settings)).toBeNull();
    expect(hotTenantOf(saturatedBy('ten_a', 16, 16), settings)).toBe('ten_a');
  });

  it('given a subject whose tenant is not a tenant id, names none (it is parked, never laned)', () => {
    expect(hotTenantOf(saturatedBy('ten_A*', 100), settings)).toBeNull();
    expect(hotTenantOf(saturatedBy('acme', 100), settings)).toBeNull();
  });
});

describe('decideLane: what to do about a hot tenant', () => {
  it('given a backlog and a free lane, opens one', () => {
    expect(decideLane('ten_a', new Map(), 100, settings)).toEqual({
      action: 'open',
      tenantId: 'ten_a',
    });
  });

  it('given too small a backlog, does nothing: nobody waits long behind it', () => {
    expect(decideLane('ten_a', new Map(), 99, settings)).toEqual({ action: 'none' });
  });

  it('given the tenant already has an open lane, does nothing', () => {
    const lanes = new Map([['ten_a', openLane('ten_a')]]);
    expect(decideLane('ten_a', lanes, 5000, settings)).toEqual({ action: 'none' });
  });

  it("given the tenant's lane is closing, keeps it open", () => {
    const lanes = new Map([['ten_a', closingLane('ten_a', 10, 20, new Date())]]);
    expect(decideLane('ten_a', lanes, 5000, settings)).toEqual({
      action: 'reopen',
      tenantId: 'ten_a',
    });
  });

  it('given every lane taken, refuses: the tenant stays in the main intake', () => {
    const lanes = new Map([
      ['ten_b', openLane('ten_b')],
      ['ten_c', openLane('ten_c')],
    ]);
    expect(decideLane('ten_a', lanes, 5000, settings)).toEqual({
      action: 'refuse',
      tenantId: 'ten_a',
    });
  });
});

describe('mainIntakeSkips: which messages the main intake acknowledges unhandled', () => {
  const fresh = 500;
  const maxAge = 10_000;

  it('given an open lane known recently, skips its tenant from its start sequence on', () => {
    const lane = openLane('ten_a', 1000);
    expect(mainIntakeSkips(lane, 1000, fresh, maxAge)).toBe(true);
    expect(mainIntakeSkips(lane, 5000, fresh, maxAge)).toBe(true);
  });

  it('given a message before the lane began, handles it: the lane does not cover it', () => {
    expect(mainIntakeSkips(openLane('ten_a', 1000), 999, fresh, maxAge)).toBe(false);
  });

  it('given no lane for the tenant, handles it', () => {
    expect(mainIntakeSkips(undefined, 1000, fresh, maxAge)).toBe(false);
  });

  it('given a closing lane, skips up to its end and handles what comes after', () => {
    const lane = closingLane('ten_a', 1000, 2000, new Date());
    expect(mainIntakeSkips(lane, 2000, fresh, maxAge)).toBe(true);
    expect(mainIntakeSkips(lane, 2001, fresh, maxAge)).toBe(false);
  });

  it('given a view of the lanes older than allowed, skips nothing: it may miss an end', () => {
    expect(mainIntakeSkips(openLane('ten_a', 1000), 5000, maxAge + 1, maxAge)).toBe(false);
  });
});

describe("mainPullsPast: what does not hold up the main intake's next pull", () => {
  const fresh = 500;
  const maxAge = 10_000;

  it("given an open lane known recently, pulls past its tenant's messages from before its start", () => {
    expect(mainPullsPast(openLane('ten_a', 1000), 999, fresh, maxAge)).toBe(true);
    expect(mainPullsPast(openLane('ten_a', 1000), 1000, fresh, maxAge)).toBe(false);
  });

  it('given no lane, a closing lane or an old view, waits for them', () => {
    expect(mainPullsPast(undefined, 999, fresh, maxAge)).toBe(false);
    expect(mainPullsPast(closingLane('ten_a', 1000, 2000, new Date()), 999, fresh, maxAge)).toBe(
      false,
    );
    expect(mainPullsPast(openLane('ten_a', 1000), 999, maxAge + 1, maxAge)).toBe(false);
  });
});

describe('mainPutsBack: what the main intake leaves for a moment', () => {
  const lane = openLane('ten_a', 1000);
  const message = { lane, opening: false, streamSeq: 999, tenantDeliveriesInHand: 128 };

  it('given a message from before the lane while the tenant holds its share, puts it back', () => {
    expect(mainPutsBack(message, 256, 0.5)).toBe(true);
  });

  it('given the tenant below its share, takes it', () => {
    expect(mainPutsBack({ ...message, tenantDeliveriesInHand: 127 }, 256, 0.5)).toBe(false);
  });

  it('given a message the lane covers, leaves it to the skip rule', () => {
    expect(
      mainPutsBack({ ...message, streamSeq: 1000, tenantDeliveriesInHand: 256 }, 256, 0.5),
    ).toBe(false);
  });

  it('given no lane, takes it: putting back would only make the backlog go round', () => {
    expect(
      mainPutsBack({ ...message, lane: undefined, tenantDeliveriesInHand: 256 }, 256, 0.5),
    ).toBe(false);
  });

  it("given a lane being opened for the tenant, puts any of the tenant's messages back until it is known", () => {
    expect(
      mainPutsBack(
        { lane: undefined, opening: true, streamSeq: 5, tenantDeliveriesInHand: 0 },
        256,
        0.5,
      ),
    ).toBe(true);
  });
});

describe('lanePutsBack: what a closing lane leaves to the main intake first', () => {
  it('given an open lane, handles everything', () => {
    expect(lanePutsBack(openLane('ten_a', 10), 50, 1)).toBe(false);
  });

  it('given a closing lane, handles what it covers at once', () => {
    expect(lanePutsBack(closingLane('ten_a', 10, 40, new Date()), 40, 1)).toBe(false);
  });

  it('given a closing lane, puts back a message after its end the first time, handles it the second', () => {
    const lane = closingLane('ten_a', 10, 40, new Date());
    expect(lanePutsBack(lane, 41, 1)).toBe(true);
    expect(lanePutsBack(lane, 41, 2)).toBe(false);
  });

  it('given a lane this engine no longer knows, handles everything', () => {
    expect(lanePutsBack(undefined, 41, 1)).toBe(false);
  });
});

describe('closing a lane', () => {
  it('given a lane without a backlog, notes since when; given a backlog, forgets it', () => {
    expect(caughtUpSince(null, { pending: 0, ackPending: 3 }, 1000)).toBe(1000);
    expect(caughtUpSince(1000, { pending: 0, ackPending: 0 }, 5000)).toBe(1000);
    expect(caughtUpSince(1000, { pending: 1, ackPending: 0 }, 5000)).toBeNull();
  });

  it('given an open lane without a backlog for the quiet period, closes it', () => {
    const lane = openLane('ten_a');
    expect(shouldCloseLane(lane, 1000, 11_000, 10_000)).toBe(true);
    expect(shouldCloseLane(lane, 1000, 10_999, 10_000)).toBe(false);
    expect(shouldCloseLane(lane, null, 99_000, 10_000)).toBe(false);
  });

  it('given a lane already closing, does not close it again', () => {
    expect(shouldCloseLane(closingLane('ten_a', 1, 2, new Date(0)), 0, 99_000, 10_000)).toBe(false);
  });
});

describe('mayDeleteLane: when a closing lane may go', () => {
  const since = new Date(100_000);
  const lane = closingLane('ten_a', 1, 2, since);
  const empty = { pending: 0, ackPending: 0 };

  it('given the grace period over and nothing held, deletes it', () => {
    expect(mayDeleteLane(lane, empty, 130_000, 30_000)).toBe(true);
  });

  it('given the grace period not yet over, keeps it: an engine may not know of the end yet', () => {
    expect(mayDeleteLane(lane, empty, 129_999, 30_000)).toBe(false);
  });

  it('given messages pending or in hand (or put back), keeps it: they must be handled first', () => {
    expect(mayDeleteLane(lane, { pending: 1, ackPending: 0 }, 200_000, 30_000)).toBe(false);
    expect(mayDeleteLane(lane, { pending: 0, ackPending: 1 }, 200_000, 30_000)).toBe(false);
  });

  it('given an open lane, keeps it', () => {
    expect(mayDeleteLane(openLane('ten_a'), empty, 999_999, 30_000)).toBe(false);
  });
});

describe("laneDeliveryBudget: a lane's part of the engine's deliveries", () => {
  it('given one lane of weight 1, gives it as many as the engine holds', () => {
    expect(laneDeliveryBudget(256, 1, [1])).toBe(256);
  });

  it('given lanes competing, shares in proportion to their weights', () => {
    expect(laneDeliveryBudget(256, 1, [1, 1])).toBe(128);
    expect(laneDeliveryBudget(240, 2, [2, 1])).toBe(160);
    expect(laneDeliveryBudget(240, 1, [2, 1])).toBe(80);
  });

  it('given a weight below 1, holds the lane back even alone', () => {
    expect(laneDeliveryBudget(256, 0.5, [0.5])).toBe(128);
  });

  it('never gives less than one delivery', () => {
    expect(laneDeliveryBudget(4, 0.01, [0.01, 100])).toBe(1);
  });
});
