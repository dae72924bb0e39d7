import type {
  LaneConsumers,
  LaneIntakeMaker,
  LaneNotices,
  LaneStore,
  MainIntakeGauges,
  RunningIntake,
} from '../../../apps/delivery/src/intake/lanes/lane-ports';
import type { Lane, LaneProgress } from '../../../apps/delivery/src/intake/lanes/lane-rules';
import type { Clock } from '../../../apps/delivery/src/ports';

/**
 * In-memory fakes of the hot-tenant lanes' ports (apps/delivery/src/intake/lanes/lane-ports.ts),
 * for the medium tier: the registry as lane-registry.ts keeps it in PostgreSQL, the lanes'
 * JetStream consumers, the change notices between engines, the main intake's gauges and the lane
 * intakes. Each records what was asked of it; the test sets what it reads.
 */

function copyOf(lane: Lane): Lane {
  return { ...lane, closingSince: lane.closingSince && new Date(lane.closingSince.getTime()) };
}

/**
 * `intake_lanes` with lane-registry.ts's semantics, on the fake clock for `now()`: one row per
 * tenant; `open` returns the tenant's lane (`opened: false`) if it has one, null when `maxLanes`
 * are open; `markClosing` and `reopen` only change a lane that is open or closing respectively;
 * `removeClosed` removes a lane closing for `graceMs` when `mayGo`, asked with the row "locked"
 * (a reopening or closing of that tenant waits meanwhile), still says so.
 */
export class FakeLaneStore implements LaneStore {
  private readonly rows = new Map<string, Lane>();
  private readonly locks = new Map<string, Promise<void>>();
  readonly opened: { tenantId: string; consumerName: string; startSeq: number }[] = [];
  readonly calls: string[] = [];

  constructor(private readonly clock: Clock) {}

  list(): Promise<Lane[]> {
    this.calls.push('list');
    return Promise.resolve(
      [...this.rows.values()]
        .sort((a, b) => (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0))
        .map(copyOf),
    );
  }

  open(
    lane: { tenantId: string; consumerName: string; startSeq: number },
    maxLanes: number,
  ): Promise<{ lane: Lane; opened: boolean } | null> {
    this.calls.push(`open ${lane.tenantId}`);
    const existing = this.rows.get(lane.tenantId);
    if (existing) {
      return Promise.resolve({ lane: copyOf(existing), opened: false });
    }
    if (this.rows.size >= maxLanes) {
      return Promise.resolve(null);
    }
    const row: Lane = { ...lane, endSeq: null, closingSince: null };
    this.rows.set(lane.tenantId, row);
    this.opened.push({ ...lane });
    return Promise.resolve({ lane: copyOf(row), opened: true });
  }

  async markClosing(tenantId: string, endSeq: number): Promise<boolean> {
    this.calls.push(`markClosing ${tenantId} ${endSeq}`);
    await this.locks.get(tenantId);
    const row = this.rows.get(tenantId);
    if (!row || row.closingSince !== null) {
      return false;
    }
    row.endSeq = Math.max(endSeq, row.startSeq - 1);
    row.closingSince = new Date(this.clock.now());
    return true;
  }

  async reopen(tenantId: string): Promise<boolean> {
    this.calls.push(`reopen ${tenantId}`);
    await this.locks.get(tenantId);
    const row = this.rows.get(tenantId);
    if (!row || row.closingSince === null) {
      return false;
    }
    row.endSeq = null;
    row.closingSince = null;
    return true;
  }

  async removeClosed(
    tenantId: string,
    graceMs: number,
    mayGo: (lane: Lane) => Promise<boolean>,
  ): Promise<boolean> {
    this.calls.push(`removeClosed ${tenantId}`);
    await this.locks.get(tenantId);
    const row = this.rows.get(tenantId);
    if (
      !row ||
      row.closingSince === null ||
      row.closingSince.getTime() > this.clock.now() - graceMs
    ) {
      return false;
    }
    let unlock = (): void => undefined;
    this.locks.set(tenantId, new Promise<void>((resolve) => (unlock = resolve)));
    try {
      if (!(await mayGo(copyOf(row)))) {
        return false;
      }
      this.rows.delete(tenantId);
      return true;
    } finally {
      this.locks.delete(tenantId);
      unlock();
    }
  }

  /** A row as another engine wrote it (opened, or closing when `endSeq` and `closingSince`). */
  put(lane: Pick<Lane, 'tenantId' | 'consumerName' | 'startSeq'> & Partial<Lane>): Lane {
    const row: Lane = { endSeq: null, closingSince: null, ...lane };
    this.rows.set(row.tenantId, row);
    return copyOf(row);
  }

  /** The tenant's row as stored now, or undefined. */
  get(tenantId: string): Lane | undefined {
    const row = this.rows.get(tenantId);
    return row && copyOf(row);
  }

  get size(): number {
    return this.rows.size;
  }
}

/**
 * The lanes' consumers and what the lanes read of JetStream. The test sets the main consumer's
 * `pending` and `deliveredStreamSeq`, the stream's `lastSeq`, and each lane consumer's progress;
 * every `ensure` and `remove` is recorded. Consumers added with `addOrphan` have no row.
 */
export class FakeLaneConsumers implements LaneConsumers {
  main = { pending: 0, deliveredStreamSeq: 0 };
  lastSeq = 0;
  mainConsumerReads = 0;
  readonly ensured: string[] = [];
  readonly removed: string[] = [];
  /** The lane consumers that exist, by name, with their progress. */
  private readonly existing = new Map<string, LaneProgress>();

  mainConsumer(): Promise<{ pending: number; deliveredStreamSeq: number }> {
    this.mainConsumerReads += 1;
    return Promise.resolve({ ...this.main });
  }

  lastStreamSeq(): Promise<number> {
    return Promise.resolve(this.lastSeq);
  }

  consumerNameFor(tenantId: string, startSeq: number): string {
    return `svc-delivery-lane-${tenantId}-${startSeq}`;
  }

  progress(consumerName: string): Promise<LaneProgress | null> {
    const progress = this.existing.get(consumerName);
    return Promise.resolve(progress ? { ...progress } : null);
  }

  ensure(lane: Lane): Promise<void> {
    this.ensured.push(lane.consumerName);
    if (!this.existing.has(lane.consumerName)) {
      this.existing.set(lane.consumerName, { pending: 0, ackPending: 0 });
    }
    return Promise.resolve();
  }

  remove(consumerName: string): Promise<void> {
    this.removed.push(consumerName);
    this.existing.delete(consumerName);
    return Promise.resolve();
  }

  laneConsumerNames(): Promise<string[]> {
    return Promise.resolve([...this.existing.keys()]);
  }

  /** A lane consumer that exists (created by another engine, say), with its progress. */
  add(consumerName: string, progress: LaneProgress = { pending: 0, ackPending: 0 }): void {
    this.existing.set(consumerName, { ...progress });
  }

  /** A lane consumer left without its row (an engine stopped between the two); its name. */
  addOrphan(tenantId: string, startSeq: number): string {
    const name = this.consumerNameFor(tenantId, startSeq);
    this.add(name);
    return name;
  }

  /** Sets an existing lane consumer's backlog and messages in hand. */
  setProgress(consumerName: string, progress: LaneProgress): void {
    if (!this.existing.has(consumerName)) {
      throw new Error(`no lane consumer ${consumerName}`);
    }
    this.existing.set(consumerName, { ...progress });
  }

  exists(consumerName: string): boolean {
    return this.existing.has(consumerName);
  }
}

/** Notices between engines: announcements recorded; `fire` is another engine's notice. */
export class FakeLaneNotices implements LaneNotices {
  readonly announced: string[] = [];
  private readonly followers = new Set<() => void>();

  announce(tenantId: string): void {
    this.announced.push(tenantId);
  }

  follow(changed: () => void): () => void {
    const follower = () => changed();
    this.followers.add(follower);
    return () => this.followers.delete(follower);
  }

  /** A notice arrives (another engine changed a lane). */
  fire(): void {
    [...this.followers].forEach((follower) => follower());
  }

  /** Followers now (the lane manager unfollows when it stops). */
  get followerCount(): number {
    return this.followers.size;
  }
}

/** The main intake's recent messages as the test sets them; `busiest()` reads are counted. */
export class FakeRecentTenants {
  size = 0;
  busiestTenant: { tenantId: string; messages: number } | null = null;
  /** How long ago another tenant's message was taken; null: never. */
  otherAgoMs: number | null = null;
  busiestReads = 0;

  busiest(): { tenantId: string; messages: number } | null {
    this.busiestReads += 1;
    return this.busiestTenant && { ...this.busiestTenant };
  }

  otherTenantAgoMs(tenantId: string): number | null {
    return this.busiestTenant?.tenantId === tenantId ? this.otherAgoMs : null;
  }
}

/** The main intake's gauges as the test sets them; `passOverCovered` calls are counted. */
export class FakeMainIntake implements MainIntakeGauges {
  waitedMs = 0;
  messagesHeld = 0;
  lag = 0;
  passOverCalls = 0;
  readonly recent = new FakeRecentTenants();

  lagMs(): number {
    return this.lag;
  }

  passOverCovered(): void {
    this.passOverCalls += 1;
  }
}

/** A lane's intake: its starts, stops and delivery bounds recorded. */
export class FakeLaneIntake implements RunningIntake {
  starts = 0;
  stops = 0;
  readonly bounds: number[] = [];

  constructor(
    readonly lane: Lane,
    readonly budget: number,
  ) {}

  start(): Promise<void> {
    this.starts += 1;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.stops += 1;
    return Promise.resolve();
  }

  boundDeliveries(maxDeliveries: number): void {
    this.bounds.push(maxDeliveries);
  }

  get running(): boolean {
    return this.starts > 0 && this.stops === 0;
  }
}

/**
 * Makes fake lane intakes, each recorded. `beforeMaking` runs first, as the engine's wiring
 * (engine.ts) ensures the lane's consumer before it makes the intake.
 */
export class FakeLaneIntakeMaker {
  readonly made: FakeLaneIntake[] = [];

  constructor(
    private readonly beforeMaking: (lane: Lane) => Promise<void> = () => Promise.resolve(),
  ) {}

  readonly make: LaneIntakeMaker = async (lane, budget) => {
    await this.beforeMaking(lane);
    const intake = new FakeLaneIntake({ ...lane }, budget);
    this.made.push(intake);
    return intake;
  };

  /** The intakes made for a tenant's lanes, oldest first. */
  of(tenantId: string): FakeLaneIntake[] {
    return this.made.filter((intake) => intake.lane.tenantId === tenantId);
  }

  /** The tenants whose lane intake runs now. */
  running(): string[] {
    return this.made.filter((intake) => intake.running).map((intake) => intake.lane.tenantId);
  }
}
