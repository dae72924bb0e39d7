import { TEST_EVENT_TYPE } from '@svc/deliveries';
import { ApiKeysService } from '@svc/identity';
import Ajv from 'ajv';
import { ulid } from 'ulid';
import { undeliveredStatement } from '../../apps/api/src/undelivered/undelivered.service';
import { http, RunningApi, startApi } from '../support';
import { attemptAgain, SeededOutcome, seedDeliveries } from '../support/delivery-seeds';
import { nodesOf, partitionsOf, planOf, SMALL_PARTITION_PAGES } from '../support/query-plans';

const SINCE = new Date('2026-03-01T00:00:00.000Z');
const HOUR = 3_600_000;

interface Endpoint {
  tenantId: string;
  endpointId: string;
}

/** Newest first, as the view orders: by the time in the delivery's id, then the id. */
const newestFirst = (ids: string[]) => [...ids].sort().reverse();

/** GET /v1/deliveries (issue 31, ADR 0042): the deliveries that did not get through. */
describe('undelivered deliveries', () => {
  let api: RunningApi;
  let tenantId: string;
  let key: string;
  let sandboxKey: string;
  let other: { tenantId: string; key: string };
  let noWebhooksKey: string;

  beforeAll(async () => {
    api = await startApi();
    ({ tenantId, key } = await api.newTenantWithKey(['webhooks:manage']));
    other = await api.newTenantWithKey(['webhooks:manage']);
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
        events: ['alert.*', 'incident.*'],
        secret: 'x'.repeat(24),
      },
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };

  /** Deliveries each after one attempt (see seedDeliveries); checks what they came to. */
  async function seed(
    endpoint: Endpoint,
    outcome: SeededOutcome,
    times: Date[],
    eventType = 'alert.created',
  ) {
    const seeded = await seedDeliveries(api.dataSource, endpoint, outcome, times, eventType);
    const expected = outcome === 'failing' ? 'pending' : outcome;
    expect(seeded.every((state) => state.status === expected)).toBe(true);
    return seeded;
  }

  /** `count` times a second apart from `from`, three sharing each second. */
  const times = (count: number, from: Date) =>
    Array.from({ length: count }, (_, i) => new Date(from.getTime() + Math.floor(i / 3) * 1000));

  const list = (query: string, as = key) =>
    http(api.baseUrl, 'GET', `/v1/deliveries${query}`, { key: as });

  const idsOf = (body: { data: { id: string }[] }) => body.data.map((delivery) => delivery.id);

  it('lists abandoned and failing deliveries apart, newest first, with their last failure', async () => {
    const endpointId = await register();
    const endpoint = { tenantId, endpointId };
    const abandoned = await seed(endpoint, 'abandoned', times(4, SINCE));
    const failing = await seed(endpoint, 'failing', times(3, new Date(SINCE.getTime() + HOUR)));
    // Neither: delivered, and a probe that failed (probes are never in the view).
    await seed(endpoint, 'succeeded', times(2, SINCE));
    await seed(endpoint, 'abandoned', times(1, SINCE), TEST_EVENT_TYPE);

    const gone = await list(`?status=abandoned&endpoint_id=${endpointId}`);
    expect(gone.status).toBe(200);
    expect(gone.headers.get('content-type')).toMatch(/^application\/json/);
    expect(idsOf(gone.body)).toEqual(newestFirst(abandoned.map((d) => d.id)));
    expect(gone.body).toMatchObject({ has_more: false, next_cursor: null });
    const first = abandoned.find((d) => d.id === gone.body.data[0].id)!;
    expect(gone.body.data[0]).toEqual({
      id: first.id,
      event_id: first.eventId,
      event_type: 'alert.created',
      endpoint_id: endpointId,
      // Seeded without a number, as a delivery made before sequence numbers.
      sequence: null,
      status: 'abandoned',
      attempts: 1,
      last_attempt_at: first.lastAttemptAt!.toISOString(),
      next_attempt_at: null,
      created_at: first.createdAt.toISOString(),
      completed_at: first.completedAt!.toISOString(),
      last_attempt: {
        status_code: 503,
        error_kind: 'http_status',
        error_message: expect.any(String),
      },
      endpoint_url: 'https://hooks.example.com/svc',
    });

    const retrying = await list(`?status=failing&endpoint_id=${endpointId}`);
    expect(retrying.status).toBe(200);
    expect(idsOf(retrying.body)).toEqual(newestFirst(failing.map((d) => d.id)));
    expect(retrying.body.data[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      next_attempt_at: expect.any(String),
      completed_at: null,
      last_attempt: { status_code: 503, error_kind: 'http_status' },
    });
  });

  it("shows each delivery's sequence number as a number, beyond 32 bits too", async () => {
    const endpointId = await register();
    const [first, second] = await seed({ tenantId, endpointId }, 'abandoned', times(2, SINCE));
    // The engine numbers a delivery when it creates it (ADR 0045): here, as it would have.
    const numbers = { [first.id]: 41, [second.id]: 2 ** 32 + 1 };
    for (const [id, sequence] of Object.entries(numbers)) {
      await api.dataSource.query('UPDATE deliveries SET sequence = $2 WHERE id = $1', [
        id,
        sequence,
      ]);
    }

    const page = await list(`?status=abandoned&endpoint_id=${endpointId}`);

    expect(page.status).toBe(200);
    expect(
      Object.fromEntries(
        page.body.data.map((delivery: { id: string; sequence: unknown }) => [
          delivery.id,
          delivery.sequence,
        ]),
      ),
    ).toEqual(numbers);
  });

  it('answers as its OpenAPI schema says', async () => {
    const endpointId = await register();
    const [numbered] = await seed({ tenantId, endpointId }, 'abandoned', times(2, SINCE));
    await api.dataSource.query('UPDATE deliveries SET sequence = 7 WHERE id = $1', [numbered.id]);
    const document = (await http(api.baseUrl, 'GET', '/v1/openapi.json')).body;
    const operation = document.paths['/v1/deliveries'].get;
    expect(operation.security).toEqual([{ api_key: [] }]);
    expect(operation.parameters).toContainEqual(
      expect.objectContaining({ name: 'status', in: 'query', required: true }),
    );
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
    ajv.addSchema(document, 'openapi.json');
    const validate = ajv.getSchema('openapi.json#/components/schemas/UndeliveredPage')!;
    const page = await list(`?status=abandoned&endpoint_id=${endpointId}`);
    // One numbered, one not: both answers of the nullable integer.
    expect(page.body.data.map((delivery: { sequence: unknown }) => delivery.sequence)).toEqual(
      expect.arrayContaining([7, null]),
    );
    expect(validate(page.body)).toBe(true);
  });

  it('takes a re-driven delivery as queued, not failing, until an attempt of its new run fails', async () => {
    const endpointId = await register();
    const ids = (await seed({ tenantId, endpointId }, 'abandoned', times(2, SINCE))).map(
      (d) => d.id,
    );
    const recovered = await http(api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/recover`, {
      key,
      json: { redrive_abandoned_since: SINCE.toISOString() },
    });
    expect(recovered.body.redriven_deliveries).toBe(2);
    for (const status of ['abandoned', 'failing']) {
      expect(idsOf((await list(`?status=${status}&endpoint_id=${endpointId}`)).body)).toEqual([]);
    }

    await attemptAgain(api.dataSource, [ids[0]], 'failing');
    const failing = await list(`?status=failing&endpoint_id=${endpointId}`);
    expect(failing.body.data).toEqual([
      expect.objectContaining({ id: ids[0], status: 'pending', attempts: 2 }),
    ]);
  });

  it('filters by endpoint and by event type', async () => {
    const [one, two] = [await register(), await register()];
    const ofOne = await seed({ tenantId, endpointId: one }, 'abandoned', times(2, SINCE));
    const incidents = await seed(
      { tenantId, endpointId: one },
      'abandoned',
      times(2, SINCE),
      'incident.created',
    );
    const ofTwo = await seed({ tenantId, endpointId: two }, 'abandoned', times(2, SINCE));

    const byEndpoint = await list(`?status=abandoned&endpoint_id=${two}`);
    expect(idsOf(byEndpoint.body)).toEqual(newestFirst(ofTwo.map((d) => d.id)));
    const byType = await list(`?status=abandoned&endpoint_id=${one}&event_type=incident.created`);
    expect(idsOf(byType.body)).toEqual(newestFirst(incidents.map((d) => d.id)));
    const all = idsOf((await list('?status=abandoned&limit=100')).body);
    for (const delivery of [...ofOne, ...incidents, ...ofTwo]) {
      expect(all).toContain(delivery.id);
    }
  });

  it('pages through a cursor with no repeat and no gap, ties in time included', async () => {
    const endpointId = await register();
    const seeded = await seed({ tenantId, endpointId }, 'abandoned', times(47, SINCE));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?status=abandoned&endpoint_id=${endpointId}&limit=10${
        cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      }`;
      const page = await list(query);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(10);
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      seen.push(...idsOf(page.body));
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual(newestFirst(seeded.map((d) => d.id)));
  });

  it('shows each tenant only its own, and keeps sandbox and live apart', async () => {
    const live = await register();
    const sandbox = await register(sandboxKey);
    const theirs = await register(other.key);
    const [ofLive] = await seed({ tenantId, endpointId: live }, 'failing', times(1, SINCE));
    const [ofSandbox] = await seed({ tenantId, endpointId: sandbox }, 'failing', times(1, SINCE));
    const [ofTheirs] = await seed(
      { tenantId: other.tenantId, endpointId: theirs },
      'failing',
      times(1, SINCE),
    );

    const asLive = idsOf((await list('?status=failing&limit=100')).body);
    expect(asLive).toContain(ofLive.id);
    expect(asLive).not.toContain(ofSandbox.id);
    expect(asLive).not.toContain(ofTheirs.id);
    const asSandbox = idsOf((await list('?status=failing&limit=100', sandboxKey)).body);
    expect(asSandbox).toEqual([ofSandbox.id]);
    const asOther = idsOf((await list('?status=failing&limit=100', other.key)).body);
    expect(asOther).toEqual([ofTheirs.id]);
  });

  it("gives a 404 problem for another tenant's or environment's endpoint, an unknown or malformed id", async () => {
    const theirs = await register(other.key);
    const sandbox = await register(sandboxKey);
    for (const id of [theirs, sandbox, 'wh_00000000000000000000000000', 'not-an-id']) {
      const response = await list(`?status=abandoned&endpoint_id=${id}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    expect((await list(`?status=abandoned&endpoint_id=${theirs}`, other.key)).status).toBe(200);
  });

  it.each([
    ['?limit=5', 'status', 'must be abandoned or failing'],
    ['?status=pending', 'status', 'must be abandoned or failing'],
    ['?status=abandoned&status=failing', 'status', 'must be abandoned or failing'],
    ['?status=failing&limit=0', 'limit', expect.stringMatching(/whole number/)],
    ['?status=failing&cursor=garbage', 'cursor', 'is not a cursor this API issued'],
    ['?status=failing&event_type=alert.exploded', 'event_type', expect.any(String)],
  ])('refuses %s with a 400 problem naming the parameter', async (query, field, detail) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body.type).toBe('urn:svc:problem:invalid-request');
    expect(response.body.errors).toEqual([{ field, detail }]);
  });

  it('needs the scope webhooks:manage', async () => {
    const response = await list('?status=abandoned', noWebhooksKey);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
  });

  it('reads an index range of undelivered deliveries in every partition of more than a few pages, never a Seq Scan of one', async () => {
    const endpointId = await register();
    // A tenant's history: many deliveries (nearly all delivered) and their attempts, over months.
    await api.dataSource.query(
      `WITH history AS (
         SELECT n, 'del_history' || lpad(n::text, 8, '0') AS id,
                now() - interval '1 day' - n * interval '5 minutes' AS at,
                CASE n % 10 WHEN 0 THEN 'abandoned' WHEN 1 THEN 'pending' ELSE 'succeeded' END
                  AS status
           FROM generate_series(1, 20000) AS n),
       inserted AS (
         INSERT INTO deliveries (id, event_id, endpoint_id, tenant_id, event_type, status, attempts,
                                 run_attempts, last_attempt_at, created_at, completed_at, version,
                                 retention_key)
         SELECT id, 'evt_history' || n, $2 || (n % 20), $1, 'alert.created', status, 1, 1, at, at,
                at, 1, at
           FROM history)
       INSERT INTO delivery_attempts (position, delivery_id, tenant_id, endpoint_id, event_id,
                                      attempt, succeeded, latency_ms, attempted_at, retention_key)
       SELECT 7000000 + n, id, $1, $2 || (n % 20), 'evt_history' || n, 1, status = 'succeeded', 5,
              at, at
         FROM history`,
      [tenantId, 'wh_history'],
    );
    await api.dataSource.query('ANALYZE deliveries');
    await api.dataSource.query('ANALYZE delivery_attempts');
    const small = new Set<string>();
    const holding: string[] = [];
    for (const table of ['deliveries', 'delivery_attempts']) {
      const partitions = await partitionsOf(api.dataSource, table);
      for (const partition of partitions) {
        if (partition.pages <= SMALL_PARTITION_PAGES) {
          small.add(partition.name);
        } else if (table === 'deliveries') {
          holding.push(partition.name);
        }
      }
    }
    expect(holding.length).toBeGreaterThan(0);
    const cursorAt = `del_${ulid(Date.now() - 30 * 24 * HOUR).toLowerCase()}`;
    const filters = [
      { status: 'abandoned' as const },
      { status: 'failing' as const },
      { status: 'failing' as const, environment: 'test' as const },
      { status: 'abandoned' as const, endpointId, eventType: 'alert.created' },
      { status: 'abandoned' as const, after: cursorAt },
    ];
    for (const filter of filters) {
      const { sql, parameters } = undeliveredStatement({
        tenantId,
        environment: 'live',
        after: null,
        take: 21,
        ...filter,
      });
      const plan = await planOf(api.dataSource, sql, parameters);
      const nodes = nodesOf(plan);
      const on = (table: string) =>
        nodes.filter(
          (node) =>
            node['Relation Name']?.startsWith(table) || node['Index Name']?.startsWith(table),
        );
      const seqScanned = [...on('deliveries'), ...on('delivery_attempts')]
        .filter((node) => node['Node Type'] === 'Seq Scan')
        .map((node) => node['Relation Name']!);
      expect({ filter, seqScanned: seqScanned.filter((name) => !small.has(name)) }).toEqual({
        filter,
        seqScanned: [],
      });
      // Every read of deliveries is a range of an index of undelivered ones: never the delivered.
      const deliveryReads = on('deliveries').filter((node) => node['Index Name']);
      expect(deliveryReads.length).toBeGreaterThanOrEqual(holding.length);
      for (const node of deliveryReads) {
        expect(node['Index Name']).toMatch(/^deliveries_.*undelivered_idx$/);
      }
      if (!filter.endpointId && !filter.environment) {
        // Across the tenant's endpoints, read newest first and stopped with the page: no sort.
        const page = nodes.find(
          (node) => node['Node Type'] === 'Limit' && nodesOf(node).some((n) => n['Index Name']),
        )!;
        const kinds = nodesOf(page).map((node) => node['Node Type']);
        expect(kinds).not.toContain('Sort');
        expect(kinds).not.toContain('Bitmap Heap Scan');
      }
      for (const node of on('delivery_attempts').filter((n) => n['Node Type'] !== 'Seq Scan')) {
        expect(node['Index Name']).toMatch(/^delivery_attempts_.*endpoint_time_idx$/);
      }
    }
  });
});
