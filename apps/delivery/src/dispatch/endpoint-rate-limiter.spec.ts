import {
  batchSizeFor,
  EndpointRateLimiter,
  putOffMs,
  RateLimitTuning,
  RateWindows,
  tokensGranted,
  WindowTake,
} from './endpoint-rate-limiter';

describe('the token arithmetic', () => {
  describe('batchSizeFor', () => {
    it('asks for a tenth of the limit, at least one and never more than the limit', () => {
      expect(batchSizeFor(1, 10)).toBe(1);
      expect(batchSizeFor(5, 10)).toBe(1);
      expect(batchSizeFor(25, 10)).toBe(2);
      expect(batchSizeFor(10_000, 10)).toBe(1000);
      expect(batchSizeFor(3, 1)).toBe(3);
    });
  });

  describe('tokensGranted', () => {
    it('grants all that was asked while the window stays within the limit', () => {
      expect(tokensGranted(5, 5, 50)).toBe(5);
      expect(tokensGranted(5, 50, 50)).toBe(5);
    });

    it('grants only what was left when the request passed the limit', () => {
      // 48 taken before, 5 asked: 2 were left.
      expect(tokensGranted(5, 53, 50)).toBe(2);
    });

    it('grants nothing when the window was full already', () => {
      expect(tokensGranted(5, null, 50)).toBe(0);
      // A limit lowered while another engine counted with the old one.
      expect(tokensGranted(5, 60, 50)).toBe(0);
    });
  });

  describe('putOffMs', () => {
    it('puts the first `limit` refusals of a window off to its end', () => {
      expect(putOffMs(300, 0, 5, 60_000)).toBe(300);
      expect(putOffMs(300, 4, 5, 60_000)).toBe(300);
    });

    it('spreads further refusals over the windows ahead, one window per `limit` of them', () => {
      expect(putOffMs(300, 5, 5, 60_000)).toBe(1300);
      expect(putOffMs(300, 12, 5, 60_000)).toBe(2300);
    });

    it('never puts off beyond the maximum, nor into the past', () => {
      expect(putOffMs(300, 1_000_000, 1, 60_000)).toBe(60_000);
      expect(putOffMs(-20, 0, 5, 60_000)).toBe(0);
    });
  });
});

const TUNING: RateLimitTuning = {
  batchShare: 10,
  maxPutOffMs: 60_000,
  nextWindowMarginMs: 20,
  sweepIntervalMs: 10_000,
  keepWindowsMs: 10_000,
};

/**
 * The shared counter as PostgreSQL keeps it, on the test's clock: windows are whole seconds,
 * a full window answers no count. After `hold()`, answers are counted at once but reach the
 * limiter only on `release()`, as over a slow network.
 */
class FakeRateWindows implements RateWindows {
  readonly counts = new Map<string, number>();
  readonly takes: { endpointId: string; asked: number }[] = [];
  sweeps = 0;
  private held: (() => void)[] | null = null;

  constructor(private readonly clock: { now: number }) {}

  async take(endpointId: string, asked: number, limit: number): Promise<WindowTake> {
    this.takes.push({ endpointId, asked });
    const windowStartMs = Math.floor(this.clock.now / 1000) * 1000;
    const key = `${endpointId} ${windowStartMs}`;
    const before = this.counts.get(key);
    const full = before !== undefined && before >= limit;
    if (!full) {
      this.counts.set(key, (before ?? 0) + asked);
    }
    const answer = {
      windowStartMs,
      takenAfter: full ? null : this.counts.get(key)!,
      remainingMs: windowStartMs + 1000 - this.clock.now,
    };
    if (this.held) {
      await new Promise<void>((release) => this.held!.push(release));
    }
    return answer;
  }

  sweep(): Promise<void> {
    this.sweeps += 1;
    return Promise.resolve();
  }

  hold(): void {
    this.held = [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    held.forEach((release) => release());
  }
}

describe('EndpointRateLimiter', () => {
  let clock: { now: number };
  let counts: FakeRateWindows;
  let limiter: EndpointRateLimiter;

  beforeEach(() => {
    clock = { now: 1_000_000_100 };
    counts = new FakeRateWindows(clock);
    limiter = new EndpointRateLimiter(counts, TUNING, () => clock.now);
  });

  const limited = (rateLimitPerSecond: number, id = 'wh_limited') => ({ id, rateLimitPerSecond });

  it('admits an endpoint without a limit without asking the database', async () => {
    for (let i = 0; i < 100; i += 1) {
      expect(await limiter.admit({ id: 'wh_free', rateLimitPerSecond: null })).toEqual({
        admitted: true,
      });
    }
    expect(counts.takes).toEqual([]);
    expect(counts.sweeps).toBe(0);
  });

  it('takes tokens a tenth of the limit at a time and spends them locally', async () => {
    for (let i = 0; i < 10; i += 1) {
      expect((await limiter.admit(limited(50))).admitted).toBe(true);
    }
    expect(counts.takes).toEqual([
      { endpointId: 'wh_limited', asked: 5 },
      { endpointId: 'wh_limited', asked: 5 },
    ]);
  });

  it('admits exactly the limit in a window, then refuses without asking again', async () => {
    const answers = [];
    for (let i = 0; i < 8; i += 1) {
      answers.push(await limiter.admit(limited(5)));
    }
    expect(answers.filter((answer) => answer.admitted)).toHaveLength(5);
    const asked = counts.takes.length;
    expect(await limiter.admit(limited(5))).toMatchObject({ admitted: false });
    expect(counts.takes).toHaveLength(asked);
  });

  it('puts a refusal off to the end of the window, and spreads a backlog over the next ones', async () => {
    for (let i = 0; i < 5; i += 1) {
      await limiter.admit(limited(5));
    }
    // 100 ms into the second: 900 ms are left, plus the margin.
    const refusals = [];
    for (let i = 0; i < 11; i += 1) {
      refusals.push(await limiter.admit(limited(5)));
    }
    expect(refusals.map((refusal) => !refusal.admitted && refusal.retryInMs)).toEqual([
      920, 920, 920, 920, 920, 1920, 1920, 1920, 1920, 1920, 2920,
    ]);
  });

  it('admits again in the next window', async () => {
    for (let i = 0; i < 6; i += 1) {
      await limiter.admit(limited(5));
    }
    clock.now += 900;
    expect(await limiter.admit(limited(5))).toEqual({ admitted: true });
    expect(counts.counts.get('wh_limited 1000001000')).toBe(1);
  });

  it('keeps the limits of endpoints apart', async () => {
    for (let i = 0; i < 5; i += 1) {
      await limiter.admit(limited(5, 'wh_a'));
    }
    expect((await limiter.admit(limited(5, 'wh_a'))).admitted).toBe(false);
    expect((await limiter.admit(limited(5, 'wh_b'))).admitted).toBe(true);
  });

  it('lets concurrent attempts wait for one request instead of each asking', async () => {
    counts.hold();
    const admissions = Array.from({ length: 8 }, () => limiter.admit(limited(50)));
    await Promise.resolve();
    expect(counts.takes).toHaveLength(1);
    counts.release();
    const answers = await Promise.all(admissions);
    expect(answers.every((answer) => answer.admitted)).toBe(true);
    // Five tokens came with the first answer; the three left over asked once more, together.
    expect(counts.takes).toHaveLength(2);
  });

  it('never spends tokens whose window ended before they arrived', async () => {
    counts.hold();
    const admission = limiter.admit(limited(50));
    await Promise.resolve();
    // Counted 100 ms into the second, the answer arrives in the next one.
    clock.now += 950;
    counts.release();

    expect(await admission).toEqual({ admitted: true });
    expect(counts.takes).toHaveLength(2);
    expect(counts.counts.get('wh_limited 1000000000')).toBe(5);
    expect(counts.counts.get('wh_limited 1000001000')).toBe(5);
  });

  it('refuses for a window rather than send unaccounted when every answer comes too late', async () => {
    jest.spyOn(counts, 'take').mockImplementation(() => {
      const answer = { windowStartMs: clock.now, takenAfter: 5, remainingMs: 1000 };
      clock.now += 1500;
      return Promise.resolve(answer);
    });

    expect(await limiter.admit(limited(50))).toEqual({ admitted: false, retryInMs: 1000 });
    expect(counts.take).toHaveBeenCalledTimes(3);
  });

  it('grants only what the shared count leaves when another engine took the rest', async () => {
    const other = new EndpointRateLimiter(counts, TUNING, () => clock.now);
    const mine = [];
    const theirs = [];
    for (let i = 0; i < 10; i += 1) {
      mine.push(await limiter.admit(limited(6)));
      theirs.push(await other.admit(limited(6)));
    }
    const admitted = [...mine, ...theirs].filter((answer) => answer.admitted);
    expect(admitted).toHaveLength(6);
    expect(mine.filter((answer) => answer.admitted)).toHaveLength(3);
  });

  it('deletes old windows now and then, only once it has limited something', async () => {
    await limiter.admit(limited(5));
    expect(counts.sweeps).toBe(1);
    clock.now += 1000;
    await limiter.admit(limited(5));
    expect(counts.sweeps).toBe(1);
    clock.now += TUNING.sweepIntervalMs;
    await limiter.admit(limited(5));
    expect(counts.sweeps).toBe(2);
  });
});
