import { openDataSource } from '@svc/database';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { PostgresRateWindows } from '../../apps/delivery/src/adapters/postgres/rate-windows';
import {
  EndpointRateLimiter,
  tokensGranted,
  WindowTake,
} from '../../apps/delivery/src/dispatch/endpoint-rate-limiter';
import { ENGINE_TUNING } from '../../apps/delivery/src/engine-tuning';
import { suiteDatabase } from './delivery-tables';

/**
 * The per-endpoint rate limit against a real PostgreSQL (ADR 0028): two "engines", each with a
 * connection pool and a limiter of its own, share one counter per endpoint and second, and
 * between them never admit more than the limit in any second.
 */
describe('the endpoint rate limit shared through PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let otherPool: DataSource;
  let sequence = 0;
  const endpointId = () => `wh_rate${(sequence += 1)}`;

  beforeAll(async () => {
    db = await suiteDatabase();
    otherPool = await openDataSource({ url: db.url, poolSize: 4 });
  });
  afterAll(async () => {
    await otherPool.destroy();
    await db.close();
  });

  /** Waits for the start of a second, so that a short burst falls in one window (not relied on). */
  async function startOfASecond(): Promise<void> {
    await sleep(1000 - (Date.now() % 1000) + 5);
  }

  it('grants, across two pools asking at once, exactly the limit in each window and no more', async () => {
    const id = endpointId();
    const limit = 50;
    const asked = 3;
    const engines = [new PostgresRateWindows(db.dataSource), new PostgresRateWindows(otherPool)];
    await startOfASecond();
    const answers: WindowTake[] = await Promise.all(
      Array.from({ length: 40 }, (_, i) => engines[i % 2].take(id, asked, limit)),
    );

    const grantedPerWindow = new Map<number, number>();
    const shortPerWindow = new Set<number>();
    for (const answer of answers) {
      const granted = tokensGranted(asked, answer.takenAfter, limit);
      const window = answer.windowStartMs;
      grantedPerWindow.set(window, (grantedPerWindow.get(window) ?? 0) + granted);
      if (granted < asked) {
        shortPerWindow.add(window);
      }
      expect(answer.remainingMs).toBeGreaterThan(0);
      expect(answer.remainingMs).toBeLessThanOrEqual(1000);
      expect(answer.windowStartMs % 1000).toBe(0);
    }
    for (const [window, granted] of grantedPerWindow) {
      expect(granted).toBeLessThanOrEqual(limit);
      // A window that refused anyone gave out its whole limit first: nothing is lost.
      if (shortPerWindow.has(window)) {
        expect(granted).toBe(limit);
      }
    }
    // 40 × 3 asked against a limit of 50: someone was refused.
    expect(shortPerWindow.size).toBeGreaterThan(0);
  });

  it('lets two engines hammering one endpoint admit at most the limit per second between them', async () => {
    const id = endpointId();
    const limit = 20;
    const endpoint = { id, rateLimitPerSecond: limit };
    const engines = [db.dataSource, otherPool].map(
      (pool) => new EndpointRateLimiter(new PostgresRateWindows(pool), ENGINE_TUNING.rateLimit),
    );
    const admittedAt: number[][] = [[], []];
    const until = Date.now() + 2500;
    // Eight attempts at a time per engine, each coming back when told (at most 100 ms later).
    const worker = async (engine: number) => {
      while (Date.now() < until) {
        const admission = await engines[engine].admit(endpoint);
        if (admission.admitted) {
          admittedAt[engine].push(Date.now());
        } else {
          await sleep(Math.min(admission.retryInMs, 100));
        }
      }
    };
    await Promise.all([0, 1].flatMap((engine) => Array.from({ length: 8 }, () => worker(engine))));

    const perSecond = new Map<number, number>();
    for (const at of admittedAt.flat()) {
      const second = Math.floor(at / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(limit);
    // The limit was reached, and both engines sent some of it.
    expect(Math.max(...perSecond.values())).toBe(limit);
    expect(admittedAt[0].length).toBeGreaterThan(0);
    expect(admittedAt[1].length).toBeGreaterThan(0);
  });

  it('asks nothing of the database for an endpoint without a limit', async () => {
    const id = endpointId();
    const limiter = new EndpointRateLimiter(
      new PostgresRateWindows(db.dataSource),
      ENGINE_TUNING.rateLimit,
    );
    for (let i = 0; i < 50; i += 1) {
      expect(await limiter.admit({ id, rateLimitPerSecond: null })).toEqual({ admitted: true });
    }
    const [row]: { windows: string }[] = await db.dataSource.query(
      'SELECT count(*) AS windows FROM endpoint_rate_windows WHERE endpoint_id = $1',
      [id],
    );
    expect(Number(row.windows)).toBe(0);
  });

  it('deletes the windows that ended longer ago than kept, and only those', async () => {
    const id = endpointId();
    await db.dataSource.query(
      `INSERT INTO endpoint_rate_windows (endpoint_id, window_start, taken)
       VALUES ($1, date_trunc('second', now()) - interval '1 minute', 3)`,
      [id],
    );
    const windows = new PostgresRateWindows(db.dataSource);
    await windows.take(id, 1, 5);
    await windows.sweep(10_000);
    const rows: { taken: number }[] = await db.dataSource.query(
      'SELECT taken FROM endpoint_rate_windows WHERE endpoint_id = $1',
      [id],
    );
    expect(rows).toEqual([{ taken: 1 }]);
  });

  it('keeps the counts in an unlogged table: worth nothing after a crash, so not written ahead', async () => {
    const [table]: { relpersistence: string }[] = await db.dataSource.query(
      "SELECT relpersistence FROM pg_class WHERE relname = 'endpoint_rate_windows'",
    );
    expect(table.relpersistence).toBe('u');
  });
});
