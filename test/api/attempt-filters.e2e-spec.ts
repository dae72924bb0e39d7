import { ApiKeysService } from '@svc/identity';
import {
  AttemptFilter,
  rangeStatement,
  walkStatement,
} from '../../apps/api/src/delivery-log/attempt-scan';
import { DeliveryLogService } from '../../apps/api/src/delivery-log/delivery-log.service';
import { http, RunningApi, startApi } from '../support';
import { nodesOf, partitionsOf, planOf, SMALL_PARTITION_PAGES } from '../support/query-plans';

/**
 * GET /v1/webhooks/{id}/attempts?from=&to=&event_type= (issue 31, ADR 0043): filters of the
 * attempt log whose cost per request is bounded, with pages that may hold fewer than limit.
 */

interface Seeded {
  at: Date;
  succeeded?: boolean;
  eventType?: string;
  /** The delivery's number among the endpoint's; none, as before sequence numbers, if absent. */
  sequence?: number;
}

const MINUTE = 60_000;

describe('attempt filters', () => {
  let api: RunningApi;
  let log: DeliveryLogService;
  let tenantId: string;
  let key: string;
  let otherKey: string;
  let sandboxKey: string;
  let position = 30_000_000;

  beforeAll(async () => {
    api = await startApi();
    log = api.app.get(DeliveryLogService);
    ({ tenantId, key } = await api.newTenantWithKey(['webhooks:manage']));
    ({ key: otherKey } = await api.newTenantWithKey(['webhooks:manage']));
    ({ key: sandboxKey } = await new ApiKeysService(api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    }));
  });
  afterEach(() => {
    log.scanBudget = 5_000;
  });
  afterAll(() => api.close());

  const register = async (): Promise<string> => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/svc',
        events: ['alert.created', 'alert.closed', 'incident.created', 'incident.resolved'],
        secret: 'x'.repeat(24),
      },
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };

  /** Deliveries and their one attempt each, as the engine's projection writes them; positions rise. */
  const seed = async (endpointId: string, attempts: Seeded[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const attempt of attempts) {
      position += 1;
      const deliveryId = `del_filters${position}`;
      const eventType = attempt.eventType ?? 'alert.created';
      await api.dataSource.query(
        `INSERT INTO deliveries (id, event_id, endpoint_id, tenant_id, event_type, status, attempts,
                                 run_attempts, last_attempt_at, created_at, version, retention_key,
                                 sequence)
         VALUES ($1, $2, $3, $4, $5, 'succeeded', 1, 1, $6, $6, 2, $6::timestamptz - interval '1 second',
                 $7)`,
        [
          deliveryId,
          `evt_filters${position}`,
          endpointId,
          tenantId,
          eventType,
          attempt.at,
          attempt.sequence ?? null,
        ],
      );
      await api.dataSource.query(
        `INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id,
                                        attempt, succeeded, status_code, latency_ms, attempted_at,
                                        retention_key, sequence)
         VALUES ($1, $2, $3, $4, $5, 1, $6, $7, 12, $8, $8::timestamptz - interval '1 second', $9)`,
        [
          position,
          deliveryId,
          tenantId,
          endpointId,
          `evt_filters${position}`,
          attempt.succeeded ?? true,
          (attempt.succeeded ?? true) ? 200 : 500,
          attempt.at,
          attempt.sequence ?? null,
        ],
      );
      ids.push(deliveryId);
    }
    return ids;
  };

  const attempts = (endpointId: string, query: Record<string, string>, as = key) =>
    http(
      api.baseUrl,
      'GET',
      `/v1/webhooks/${endpointId}/attempts?${new URLSearchParams(query).toString()}`,
      { key: as },
    );

  /** Every page, following next_cursor until has_more is false. */
  const allPages = async (endpointId: string, query: Record<string, string>) => {
    const pages: { delivery_id: string }[][] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 200; guard += 1) {
      const response = await attempts(endpointId, { ...query, ...(cursor ? { cursor } : {}) });
      expect(response.status).toBe(200);
      pages.push(response.body.data as { delivery_id: string }[]);
      if (!response.body.has_more) {
        return pages;
      }
      cursor = response.body.next_cursor as string;
      expect(cursor).toEqual(expect.any(String));
    }
    throw new Error('more than 200 pages');
  };

  const ids = (page: { delivery_id: string }[]) => page.map((item) => item.delivery_id);

  it('keeps the attempts made from `from` (included) to `to` (excluded), newest first', async () => {
    const endpointId = await register();
    const from = new Date(Date.now() - 30 * MINUTE);
    const to = new Date(from.getTime() + 10 * MINUTE);
    const [before, first, middle, last, atTo] = await seed(endpointId, [
      { at: new Date(from.getTime() - 1) },
      { at: from },
      { at: new Date(from.getTime() + MINUTE) },
      { at: new Date(to.getTime() - 1) },
      { at: to },
    ]);
    const range = { from: from.toISOString(), to: to.toISOString() };
    const response = await attempts(endpointId, range);
    expect(response.status).toBe(200);
    expect(ids(response.body.data)).toEqual([last, middle, first]);
    expect(response.body.has_more).toBe(false);
    expect((await attempts(endpointId, { from: from.toISOString() })).body.data).toHaveLength(4);
    expect(ids((await attempts(endpointId, { to: to.toISOString() })).body.data)).toEqual([
      last,
      middle,
      first,
      before,
    ]);
    expect(ids((await attempts(endpointId, { ...range, limit: '2' })).body.data)).toEqual([
      last,
      middle,
    ]);
    expect(atTo).toBeDefined();
  });

  it('keeps the attempts of one event type, with the outcome and the time range, each carrying its type', async () => {
    const endpointId = await register();
    const base = Date.now() - 20 * MINUTE;
    const at = (minute: number) => new Date(base + minute * MINUTE);
    const [closedOk, , closedFailed, , lateClosedFailed] = await seed(endpointId, [
      { at: at(0), eventType: 'alert.closed' },
      { at: at(1), eventType: 'alert.created' },
      { at: at(2), eventType: 'alert.closed', succeeded: false },
      { at: at(3), eventType: 'incident.created', succeeded: false },
      { at: at(9), eventType: 'alert.closed', succeeded: false },
    ]);
    const closed = await attempts(endpointId, { event_type: 'alert.closed' });
    expect(ids(closed.body.data)).toEqual([lateClosedFailed, closedFailed, closedOk]);
    expect(closed.body.data.map((a: { event_type: string }) => a.event_type)).toEqual([
      'alert.closed',
      'alert.closed',
      'alert.closed',
    ]);
    const all = await attempts(endpointId, {});
    expect(all.body.data.map((a: { event_type: string }) => a.event_type)).toEqual([
      'alert.closed',
      'incident.created',
      'alert.closed',
      'alert.created',
      'alert.closed',
    ]);
    const failedClosed = await attempts(endpointId, {
      event_type: 'alert.closed',
      outcome: 'failed',
    });
    expect(ids(failedClosed.body.data)).toEqual([lateClosedFailed, closedFailed]);
    const inRange = { from: at(0).toISOString(), to: at(5).toISOString() };
    const failedInRange = await attempts(endpointId, { ...inRange, outcome: 'failed' });
    expect(failedInRange.body.data.map((a: { outcome: string }) => a.outcome)).toEqual([
      'failed',
      'failed',
    ]);
    const all3 = await attempts(endpointId, {
      ...inRange,
      outcome: 'failed',
      event_type: 'alert.closed',
    });
    expect(ids(all3.body.data)).toEqual([closedFailed]);
    expect(all3.body.has_more).toBe(false);
  });

  it("carries each attempt's sequence number, as a number, in a range read and in a walk", async () => {
    const endpointId = await register();
    const at = Date.now() - 10 * MINUTE;
    await seed(endpointId, [
      { at: new Date(at) },
      { at: new Date(at + MINUTE), sequence: 1 },
      { at: new Date(at + 2 * MINUTE), sequence: 2 ** 32 + 2 },
    ]);
    const sequences = (page: { sequence: unknown }[]) => page.map((item) => item.sequence);
    const newestFirst = [2 ** 32 + 2, 1, null];

    const walked = await attempts(endpointId, { event_type: 'alert.created' });
    expect(sequences(walked.body.data)).toEqual(newestFirst);
    const ranged = await attempts(endpointId, { from: new Date(at).toISOString() });
    expect(sequences(ranged.body.data)).toEqual(newestFirst);
    expect(sequences((await attempts(endpointId, {})).body.data)).toEqual(newestFirst);
  });

  it.each([
    ['a small time range', 'range', { withRange: true, wide: false }],
    ['a time range wider than the budget', 'walk', { withRange: true, wide: true }],
    ['an event type alone', 'walk', { withRange: false, wide: false }],
  ])(
    'pages through %s across scan-budget boundaries with no repeat and no gap',
    async (_name, _mode, { withRange, wide }) => {
      const endpointId = await register();
      const base = Date.now() - 60 * MINUTE;
      // 60 attempts a minute apart; every seventh is a rare type, a third of those failed.
      const seeded = Array.from({ length: 60 }, (_, i) => ({
        at: new Date(base + i * MINUTE),
        eventType: i % 7 === 3 ? 'incident.resolved' : 'alert.created',
        succeeded: i % 3 !== 0,
      }));
      const deliveryIds = await seed(endpointId, seeded);
      const [fromMinute, toMinute] = wide ? [5, 55] : [10, 30];
      const inRange = (i: number) => !withRange || (i >= fromMinute && i < toMinute);
      const expected = deliveryIds
        .filter((_, i) => seeded[i].eventType === 'incident.resolved' && inRange(i))
        .reverse();
      // A small range (20 attempts) is read whole; anything else walks 8 attempts a request.
      log.scanBudget = withRange && !wide ? 20 : 8;
      const query: Record<string, string> = { event_type: 'incident.resolved', limit: '2' };
      if (withRange) {
        query.from = new Date(base + fromMinute * MINUTE).toISOString();
        query.to = new Date(base + toMinute * MINUTE).toISOString();
      }
      const pages = await allPages(endpointId, query);
      expect(pages.flatMap(ids)).toEqual(expected);
      if (withRange && !wide) {
        // Twenty attempts in range, within the budget: exact pages.
        expect(pages.slice(0, -1).every((page) => page.length === 2)).toBe(true);
      } else {
        // The budget cut some pages short, yet the client got every attempt once.
        expect(pages.some((page, i) => i < pages.length - 1 && page.length < 2)).toBe(true);
      }
      const failed = await allPages(endpointId, { ...query, outcome: 'failed' });
      expect(failed.flatMap(ids)).toEqual(
        expected.filter((id) => !seeded[deliveryIds.indexOf(id)].succeeded),
      );
      // Unfiltered pages never stop short.
      const unfiltered = await allPages(endpointId, { limit: '7' });
      expect(unfiltered.flatMap(ids)).toEqual([...deliveryIds].reverse());
      expect(unfiltered.slice(0, -1).every((page) => page.length === 7)).toBe(true);
    },
  );

  it.each([
    [
      { from: 'yesterday' },
      'from',
      'must be an RFC 3339 date-time with a time zone, such as 2026-01-31T12:00:00Z',
    ],
    [
      { to: '2026-01-31T12:00:00' },
      'to',
      'must be an RFC 3339 date-time with a time zone, such as 2026-01-31T12:00:00Z',
    ],
    [{ from: '2026-01-31T12:00:00Z', to: '2026-01-31T12:00:00Z' }, 'to', 'must be after from'],
    [{ from: '2026-01-31T13:00:00Z', to: '2026-01-31T12:00:00Z' }, 'to', 'must be after from'],
    [{ event_type: 'alert.nope' }, 'event_type', 'must be an event type of GET /v1/event-types'],
  ])('refuses %j with a 400 problem naming %s', async (query, field, detail) => {
    const endpointId = await register();
    const response = await attempts(endpointId, query);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.type).toBe('urn:svc:problem:invalid-request');
    expect(response.body.errors).toEqual([{ field, detail }]);
  });

  it("answers 404 for another tenant's or environment's endpoint, whatever the filters", async () => {
    const endpointId = await register();
    await seed(endpointId, [{ at: new Date(Date.now() - MINUTE), eventType: 'alert.closed' }]);
    const query = {
      from: new Date(Date.now() - 10 * MINUTE).toISOString(),
      to: new Date().toISOString(),
      event_type: 'alert.closed',
    };
    expect((await attempts(endpointId, query)).body.data).toHaveLength(1);
    for (const as of [otherKey, sandboxKey]) {
      const response = await attempts(endpointId, query, as);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('reads index ranges: the time index for a time range, the position index for a walk, deliveries by key', async () => {
    const endpointId = await register();
    // A tenant's history over two weeks: half of it this endpoint's, half other endpoints'.
    await api.dataSource.query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, tenant_id, event_type, status, attempts,
                               run_attempts, created_at, version, retention_key)
       SELECT 'del_fhistory' || n, 'evt_fhistory' || n, 'wh_fhistory' || (n % 50), $1,
              'alert.created', 'succeeded', 1, 1, now() - n * interval '1 minute', 2,
              now() - n * interval '1 minute' - interval '1 second'
         FROM generate_series(1, 20000) AS n`,
      [tenantId],
    );
    await api.dataSource.query(
      `INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id,
                                      attempt, succeeded, latency_ms, attempted_at, retention_key)
       SELECT 40000000 + n, 'del_fhistory' || n, $1,
              CASE WHEN n % 2 = 0 THEN $2 ELSE 'wh_fhistory' || (n % 50) END, 'evt_fhistory' || n,
              1, n % 7 <> 0, n % 900, now() - n * interval '1 minute',
              now() - n * interval '1 minute' - interval '1 second'
         FROM generate_series(1, 20000) AS n`,
      [tenantId, endpointId],
    );
    await api.dataSource.query('ANALYZE delivery_attempts');
    await api.dataSource.query('ANALYZE deliveries');
    const partitions = await partitionsOf(api.dataSource, 'delivery_attempts', 'deliveries');
    const small = new Set(
      partitions.filter((p) => p.pages <= SMALL_PARTITION_PAGES).map((p) => p.name),
    );
    expect(partitions.some((p) => p.pages > SMALL_PARTITION_PAGES)).toBe(true);
    const filter: AttemptFilter = {
      endpointId,
      tenantId,
      eventType: 'incident.resolved',
      outcome: 'failed',
      from: new Date(Date.now() - 24 * 60 * MINUTE),
      to: new Date(),
      before: null,
      take: 21,
      // The budget is to an endpoint's history what 5,000 is to millions of attempts: a walk
      // reads a small part of it (of half of it, a sort of everything would rightly be cheaper).
      budget: 100,
    };
    const plans: [string, { sql: string; parameters: unknown[] }, RegExp][] = [
      ['range', rangeStatement(filter), /^delivery_attempts_.*endpoint_time_idx$/],
      // A walk reads by position: the endpoint's index, or the primary key (position first) of a
      // partition where the endpoint's attempts are most of the rows; either stops with the budget.
      ['walk', walkStatement(filter), /^delivery_attempts_.*(endpoint_idx|pkey)$/],
      [
        'walk from a cursor',
        walkStatement({ ...filter, before: '40010000' }),
        /^delivery_attempts_.*(endpoint_idx|pkey)$/,
      ],
    ];
    for (const [statement, { sql, parameters }, attemptIndex] of plans) {
      const plan = await planOf(api.dataSource, sql, parameters);
      const nodes = nodesOf(plan);
      if (statement !== 'range') {
        // The walk stops after its budget: never a sort of the endpoint's attempts.
        expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
      }
      const onTable = (table: string) =>
        nodes.filter(
          (node) =>
            node['Relation Name']?.startsWith(table) || node['Index Name']?.startsWith(table),
        );
      for (const table of ['delivery_attempts', 'deliveries']) {
        const seqScanned = onTable(table)
          .filter((node) => node['Node Type'] === 'Seq Scan')
          .map((node) => node['Relation Name']!);
        expect(seqScanned.filter((name) => !small.has(name))).toEqual([]);
      }
      const attemptIndexes = onTable('delivery_attempts')
        .filter((node) =>
          ['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'].includes(node['Node Type']),
        )
        .map((node) => node['Index Name']);
      expect(attemptIndexes.length).toBeGreaterThan(0);
      for (const name of attemptIndexes) {
        expect(name).toMatch(attemptIndex);
      }
      const deliveryIndexes = onTable('deliveries')
        .filter((node) => node['Node Type'].includes('Index'))
        .map((node) => node['Index Name']);
      for (const name of deliveryIndexes) {
        expect(name).toMatch(/pkey$/);
      }
    }
  });
});
