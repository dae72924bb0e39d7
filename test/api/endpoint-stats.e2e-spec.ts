import { ApiKeysService } from '@svc/identity';
import { ENDPOINT_STATS_SQL } from '../../apps/api/src/endpoint-stats/endpoint-stats.service';
import { http, RunningApi, startApi } from '../support';
import { nodesOf, partitionsOf, planOf, SMALL_PARTITION_PAGES } from '../support/query-plans';

const HOUR = 3_600_000;

interface Attempt {
  at: Date;
  succeeded: boolean;
  latencyMs: number;
}

/** GET /v1/webhooks/{id}/stats (issue 31, ADR 0042): an endpoint's attempts per hour. */
describe('endpoint stats', () => {
  let api: RunningApi;
  let tenantId: string;
  let key: string;
  let otherKey: string;
  let sandboxKey: string;
  let noWebhooksKey: string;
  let position = 1_000_000;

  beforeAll(async () => {
    api = await startApi();
    ({ tenantId, key } = await api.newTenantWithKey(['webhooks:manage']));
    ({ key: otherKey } = await api.newTenantWithKey(['webhooks:manage']));
    const keys = new ApiKeysService(api.dataSource);
    ({ key: sandboxKey } = await keys.create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    }));
    ({ key: noWebhooksKey } = await keys.create({
      tenantId,
      scopes: ['tenants:read'],
      environment: 'live',
    }));
  });
  afterAll(() => api.close());

  const register = async (as = key): Promise<string> => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key: as,
      json: {
        url: 'https://hooks.example.com/svc',
        events: ['alert.created'],
        secret: 'x'.repeat(24),
      },
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };

  /** Attempts straight into the projection, as the engine's projection writes them. */
  const insertAttempts = async (endpointId: string, owner: string, attempts: Attempt[]) => {
    for (const attempt of attempts) {
      position += 1;
      await api.dataSource.query(
        `INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id,
                                        attempt, succeeded, status_code, latency_ms, attempted_at,
                                        retention_key)
         VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $9::timestamptz - interval '1 second')`,
        [
          position,
          `del_stats${position}`,
          owner,
          endpointId,
          `evt_stats${position}`,
          attempt.succeeded,
          attempt.succeeded ? 200 : 500,
          attempt.latencyMs,
          attempt.at,
        ],
      );
    }
  };

  const stats = (endpointId: string, query = '', as = key) =>
    http(api.baseUrl, 'GET', `/v1/webhooks/${endpointId}/stats${query}`, { key: as });

  /** Start of the current hour; waits out the last seconds of an hour so that the test stays in one. */
  const currentHour = async (): Promise<number> => {
    const left = HOUR - (Date.now() % HOUR);
    if (left < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, left + 50));
    }
    return Math.floor(Date.now() / HOUR) * HOUR;
  };

  it('counts attempts per hour by outcome, with p50 and p99 of known latencies, over 24 hours', async () => {
    const endpointId = await register();
    const neighbour = await register();
    const hour = await currentHour();
    const to = hour + HOUR;
    const from24h = to - 24 * HOUR;
    // An hour ago: latencies 1..100 ms, 90 succeeded and 10 failed.
    const previous = Array.from({ length: 100 }, (_, i) => ({
      at: new Date(hour - HOUR + 1000 + i),
      succeeded: i >= 10,
      latencyMs: i + 1,
    }));
    await insertAttempts(endpointId, tenantId, [
      ...previous,
      // The current hour, so far.
      { at: new Date(hour), succeeded: true, latencyMs: 10 },
      { at: new Date(hour), succeeded: true, latencyMs: 20 },
      { at: new Date(hour), succeeded: false, latencyMs: 30 },
      // The first instant of the window counts; the last before it does not.
      { at: new Date(from24h), succeeded: false, latencyMs: 5000 },
      { at: new Date(from24h - 1), succeeded: true, latencyMs: 1 },
    ]);
    // Another endpoint's attempts in the same hours count for it only.
    await insertAttempts(neighbour, tenantId, [
      { at: new Date(hour), succeeded: false, latencyMs: 7 },
    ]);

    const response = await stats(endpointId, '?window=24h');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = response.body;
    expect(body).toMatchObject({
      endpoint_id: endpointId,
      window: '24h',
      from: new Date(from24h).toISOString(),
      to: new Date(to).toISOString(),
      totals: { attempts: 104, succeeded: 92, failed: 12, success_rate: 92 / 104 },
    });
    expect(body.buckets).toHaveLength(24);
    expect(body.buckets.map((bucket: { hour: string }) => bucket.hour)).toEqual(
      Array.from({ length: 24 }, (_, i) => new Date(from24h + i * HOUR).toISOString()),
    );
    expect(body.buckets[23]).toEqual({
      hour: new Date(hour).toISOString(),
      succeeded: 2,
      failed: 1,
      latency_p50_ms: 20,
      latency_p99_ms: 29.8,
    });
    expect(body.buckets[22]).toEqual({
      hour: new Date(hour - HOUR).toISOString(),
      succeeded: 90,
      failed: 10,
      latency_p50_ms: 50.5,
      latency_p99_ms: 99.01,
    });
    expect(body.buckets[0]).toEqual({
      hour: new Date(from24h).toISOString(),
      succeeded: 0,
      failed: 1,
      latency_p50_ms: 5000,
      latency_p99_ms: 5000,
    });
    for (const bucket of body.buckets.slice(1, 22)) {
      expect(bucket).toEqual({
        hour: bucket.hour,
        succeeded: 0,
        failed: 0,
        latency_p50_ms: null,
        latency_p99_ms: null,
      });
    }

    const neighbourStats = await stats(neighbour);
    expect(neighbourStats.body.totals).toEqual({
      attempts: 1,
      succeeded: 0,
      failed: 1,
      success_rate: 0,
    });
  });

  it('takes 24h by default and covers 168 hours with 7d', async () => {
    const endpointId = await register();
    const hour = await currentHour();
    const to = hour + HOUR;
    const from7d = to - 168 * HOUR;
    await insertAttempts(endpointId, tenantId, [
      { at: new Date(hour), succeeded: true, latencyMs: 40 },
      { at: new Date(to - 24 * HOUR - 1), succeeded: false, latencyMs: 60 },
      { at: new Date(from7d), succeeded: true, latencyMs: 80 },
      { at: new Date(from7d - 1), succeeded: true, latencyMs: 80 },
    ]);

    const byDefault = await stats(endpointId);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.window).toBe('24h');
    expect(byDefault.body.buckets).toHaveLength(24);
    expect(byDefault.body.totals).toEqual({
      attempts: 1,
      succeeded: 1,
      failed: 0,
      success_rate: 1,
    });

    const week = await stats(endpointId, '?window=7d');
    expect(week.status).toBe(200);
    expect(week.body.from).toBe(new Date(from7d).toISOString());
    expect(week.body.buckets).toHaveLength(168);
    expect(week.body.totals).toEqual({
      attempts: 3,
      succeeded: 2,
      failed: 1,
      success_rate: 2 / 3,
    });
    expect(week.body.buckets[0]).toMatchObject({ succeeded: 1, failed: 0, latency_p50_ms: 80 });
    expect(week.body.buckets[143]).toMatchObject({
      hour: new Date(to - 25 * HOUR).toISOString(),
      failed: 1,
      latency_p99_ms: 60,
    });
  });

  it('answers zeros and null latencies and rate for an endpoint without attempts', async () => {
    const endpointId = await register();
    const response = await stats(endpointId);
    expect(response.status).toBe(200);
    expect(response.body.totals).toEqual({
      attempts: 0,
      succeeded: 0,
      failed: 0,
      success_rate: null,
    });
    expect(
      response.body.buckets.every(
        (bucket: { succeeded: number; latency_p50_ms: number | null }) =>
          bucket.succeeded === 0 && bucket.latency_p50_ms === null,
      ),
    ).toBe(true);
  });

  it("gives a 404 problem for another tenant's endpoint, an unknown id and a malformed id", async () => {
    const theirs = await register(otherKey);
    for (const id of [theirs, 'wh_00000000000000000000000000', 'not-an-id']) {
      const response = await stats(id);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.text).not.toContain('buckets');
    }
    expect((await stats(theirs, '', otherKey)).status).toBe(200);
  });

  it('keeps sandbox and live apart: a sandbox key gets a 404 for a live endpoint', async () => {
    const live = await register();
    const sandbox = await register(sandboxKey);
    expect((await stats(live, '', sandboxKey)).status).toBe(404);
    expect((await stats(sandbox, '', key)).status).toBe(404);
    expect((await stats(sandbox, '', sandboxKey)).status).toBe(200);
  });

  it('needs the scope webhooks:manage, as the endpoint itself does', async () => {
    const endpointId = await register();
    const response = await stats(endpointId, '', noWebhooksKey);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
  });

  it.each(['1h', '30d', '', '24H', '24h,7d'])(
    'refuses window=%s with a 400 problem naming the field',
    async (window) => {
      const endpointId = await register();
      const response = await stats(endpointId, `?window=${encodeURIComponent(window)}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.type).toBe('urn:svc:problem:invalid-request');
      expect(response.body.errors).toEqual([{ field: 'window', detail: 'must be 24h or 7d' }]);
    },
  );

  it("reads an index range of the endpoint's attempts in every partition of more than a few pages, never a Seq Scan of one", async () => {
    const endpointId = await register();
    // A tenant's history: many attempts of other endpoints, over the window and long before.
    await api.dataSource.query(
      `INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id,
                                      attempt, succeeded, latency_ms, attempted_at, retention_key)
       SELECT 5000000 + n, 'del_history' || n, $1, 'wh_history' || (n % 50), 'evt_history' || n,
              1, n % 7 <> 0, n % 900, now() - n * interval '1 minute',
              now() - n * interval '1 minute' - interval '1 second'
         FROM generate_series(1, 20000) AS n`,
      [tenantId],
    );
    await api.dataSource.query('ANALYZE delivery_attempts');
    const partitions = await partitionsOf(api.dataSource, 'delivery_attempts');
    // A partition of a few pages is read whole more cheaply than through any index, and its cost
    // is bounded by its size: PostgreSQL rightly picks a Seq Scan there (an empty one, or the
    // few attempts of the last minutes). Every larger partition is read by the index range.
    const small = new Set(
      partitions.filter((p) => p.pages <= SMALL_PARTITION_PAGES).map((p) => p.name),
    );
    const holding = partitions.filter((p) => p.pages > SMALL_PARTITION_PAGES);
    // The history lies in at least one partition larger than that.
    expect(holding.length).toBeGreaterThan(0);
    const hour = Math.floor(Date.now() / HOUR) * HOUR;
    for (const window of [24, 168]) {
      const plan = await planOf(api.dataSource, ENDPOINT_STATS_SQL, [
        endpointId,
        new Date(hour + HOUR - window * HOUR),
        new Date(hour + HOUR),
      ]);
      const nodes = nodesOf(plan);
      const onAttempts = nodes.filter(
        (node) =>
          node['Relation Name']?.startsWith('delivery_attempts') ||
          node['Index Name']?.startsWith('delivery_attempts'),
      );
      expect(onAttempts.length).toBeGreaterThan(0);
      const seqScanned = onAttempts
        .filter((node) => node['Node Type'] === 'Seq Scan')
        .map((node) => node['Relation Name']);
      expect(seqScanned.filter((name) => !small.has(name!))).toEqual([]);
      const indexScans = onAttempts.filter((node) =>
        ['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'].includes(node['Node Type']),
      );
      expect(indexScans.length).toBeGreaterThanOrEqual(holding.length);
      for (const node of indexScans) {
        expect(node['Index Name']).toMatch(/^delivery_attempts_.*endpoint_time_idx$/);
      }
    }
  });
});
