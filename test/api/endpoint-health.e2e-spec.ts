import { ApiKeysService } from '@svc/identity';
import { ENDPOINT_HEALTH_SQL } from '../../apps/api/src/endpoint-stats/endpoint-health';
import { http, RunningApi, startApi } from '../support';
import { nodesOf, partitionsOf, planOf, SMALL_PARTITION_PAGES } from '../support/query-plans';

const HOUR = 3_600_000;

/**
 * `GET /v1/webhooks?include=health` (issue 31, ADR 0042): each endpoint of a page with its last
 * 24 hours and latest attempt, in one answer, so that the console's endpoints page makes one
 * request instead of two per row.
 */
describe('the endpoints list with their health', () => {
  let api: RunningApi;
  let tenantId: string;
  let key: string;
  let position = 5_000_000;

  beforeAll(async () => {
    api = await startApi();
    ({ tenantId, key } = await api.newTenantWithKey(['webhooks:manage']));
  });
  afterAll(() => api.close());

  const register = async (as = key): Promise<string> => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key: as,
      json: { url: 'https://hooks.example.com/in', events: ['alert.*'], secret: 'x'.repeat(24) },
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };

  const insertAttempt = async (endpointId: string, at: Date, succeeded: boolean) => {
    position += 1;
    await api.dataSource.query(
      `INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id,
                                      attempt, succeeded, status_code, latency_ms, attempted_at,
                                      retention_key)
       VALUES ($1, $2, $3, $4, $5, 1, $6, $7, 12, $8, $8::timestamptz - interval '1 second')`,
      [
        position,
        `del_health${position}`,
        tenantId,
        endpointId,
        `evt_health${position}`,
        succeeded,
        succeeded ? 200 : 503,
        at,
      ],
    );
  };

  it('gives each endpoint its 24 hours and latest attempt, as the stats route counts them', async () => {
    const busy = await register();
    const idle = await register();
    const now = Date.now();
    for (let index = 0; index < 3; index += 1) {
      await insertAttempt(busy, new Date(now - HOUR - index * 1000), true);
    }
    await insertAttempt(busy, new Date(now - 60_000), false);
    // Two days ago: not counted, and not the latest either.
    await insertAttempt(busy, new Date(now - 48 * HOUR), true);

    const listed = await http(api.baseUrl, 'GET', '/v1/webhooks?include=health&limit=100', {
      key,
    });
    expect(listed.status).toBe(200);
    const byId = new Map(
      (listed.body.data as Array<{ id: string; health: unknown }>).map((item) => [item.id, item]),
    );
    expect(byId.get(busy)?.health).toMatchObject({
      window: '24h',
      attempts: 4,
      succeeded: 3,
      failed: 1,
      success_rate: 0.75,
      last_attempt_at: new Date(now - 60_000).toISOString(),
      last_attempt_outcome: 'failed',
      last_attempt_status_code: 503,
    });
    expect(byId.get(idle)?.health).toMatchObject({
      attempts: 0,
      success_rate: null,
      last_attempt_at: null,
      last_attempt_outcome: null,
    });

    const stats = await http(api.baseUrl, 'GET', `/v1/webhooks/${busy}/stats`, { key });
    expect(stats.body.totals).toMatchObject({ attempts: 4, succeeded: 3 });
    expect((byId.get(busy)?.health as { from: string }).from).toBe(stats.body.from);
  });

  it('leaves the list as it was without include, and refuses an unknown include by name', async () => {
    await register();
    const plain = await http(api.baseUrl, 'GET', '/v1/webhooks', { key });
    expect(plain.status).toBe(200);
    expect(plain.body.data[0]).not.toHaveProperty('health');

    const refused = await http(api.baseUrl, 'GET', '/v1/webhooks?include=secrets', { key });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('include');
  });

  it("counts another tenant's endpoints for nobody: each tenant's list has its own only", async () => {
    const { key: otherKey } = await api.newTenantWithKey(['webhooks:manage']);
    const theirs = await register(otherKey);
    const ours = await http(api.baseUrl, 'GET', '/v1/webhooks?include=health&limit=100', { key });
    expect((ours.body.data as Array<{ id: string }>).map((item) => item.id)).not.toContain(theirs);
    const sandbox = await new ApiKeysService(api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    });
    const sandboxList = await http(api.baseUrl, 'GET', '/v1/webhooks?include=health', {
      key: sandbox.key,
    });
    expect(sandboxList.body.data).toEqual([]);
  });

  it('reads attempts by index ranges of the endpoint and time, never a scan of a large partition', async () => {
    const endpointId = await register();
    await api.dataSource.query(
      `INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id,
                                      attempt, succeeded, status_code, latency_ms, attempted_at,
                                      retention_key)
       SELECT 9000000 + n, 'del_bulk' || n, $1, $2, 'evt_bulk' || n, 1, n % 7 <> 0, 200, 10,
              now() - n * interval '1 minute', now() - n * interval '1 minute' - interval '1 second'
         FROM generate_series(1, 20000) AS n`,
      [tenantId, endpointId],
    );
    await api.dataSource.query('ANALYZE delivery_attempts');
    const partitions = await partitionsOf(api.dataSource, 'delivery_attempts');
    const small = new Set(
      partitions.filter((p) => p.pages <= SMALL_PARTITION_PAGES).map((p) => p.name),
    );
    expect(partitions.some((p) => p.pages > SMALL_PARTITION_PAGES)).toBe(true);
    const plan = await planOf(api.dataSource, ENDPOINT_HEALTH_SQL, [
      [endpointId],
      new Date(Date.now() - 24 * HOUR),
      new Date(Date.now() + HOUR),
    ]);
    const onAttempts = nodesOf(plan).filter(
      (node) =>
        node['Relation Name']?.startsWith('delivery_attempts') ||
        node['Index Name']?.startsWith('delivery_attempts'),
    );
    const seqScanned = onAttempts
      .filter((node) => node['Node Type'] === 'Seq Scan')
      .map((node) => node['Relation Name']);
    expect(seqScanned.filter((name) => !small.has(name!))).toEqual([]);
    const indexes = onAttempts
      .filter((node) =>
        ['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'].includes(node['Node Type']),
      )
      .map((node) => node['Index Name']);
    expect(indexes.length).toBeGreaterThan(0);
    for (const name of indexes) {
      expect(name).toMatch(/^delivery_attempts_.*endpoint_time_idx$/);
    }
  });
});
