import { ApiKeysService } from '@svc/identity';
import { auditStatement } from '../../apps/api/src/audit/audit-query';
import { http, RunningApi, startApi } from '../support';
import { nodesOf, PlanNode } from '../support/query-plans';

/** The address every request below comes from, as the trusted proxy (loopback) tells it. */
const CLIENT_ADDRESS = '203.0.113.9';
const ENDPOINT_SECRET = 'audit-trail-endpoint-secret-01';
const ROTATED_SECRET = 'audit-trail-rotated-secret-02';

interface Action {
  action: string;
  requestId: string;
}

/**
 * GET /v1/audit-events (issue 33 item 2, ADR 0047): every management action of the caller's
 * tenant and environment, read from the log, newest first, with who did it and from where; never
 * a secret, never another tenant's or environment's entries.
 */
describe('GET /v1/audit-events', () => {
  let api: RunningApi;
  let tenantId: string;
  let key: string;
  let keyId: string;
  let endpointId: string;
  let portalToken: string;
  const done: Action[] = [];
  let beforeActions: Date;
  const answers: string[] = [];

  /** A request of the tenant's key, from CLIENT_ADDRESS; a management action is remembered. */
  async function act(action: string, method: string, path: string, json?: unknown) {
    const response = await http(api.baseUrl, method, path, {
      key,
      json,
      headers: { 'x-forwarded-for': CLIENT_ADDRESS },
    });
    expect(response.status).toBeLessThan(300);
    done.push({ action, requestId: response.headers.get('x-request-id')! });
    return response;
  }

  async function list(query = '', as = key) {
    const response = await http(api.baseUrl, 'GET', `/v1/audit-events${query}`, { key: as });
    answers.push(response.text);
    return response;
  }

  beforeAll(async () => {
    // No engine: a test waits the attempt timeout (and a margin) for an attempt, then answers.
    api = await startApi({ DELIVERY_TIMEOUT: '1s', API_TRUSTED_PROXIES: '127.0.0.1/32,::1/128' });
    ({ tenantId, key, keyId } = await api.newTenantWithKey(['webhooks:manage', 'audit:read']));
    beforeActions = new Date();
    const registered = await act('endpoint.registered', 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/audit',
      events: ['alert.*'],
      secret: ENDPOINT_SECRET,
    });
    endpointId = registered.body.id;
    await act('endpoint.updated', 'PATCH', `/v1/webhooks/${endpointId}`, {
      url: 'https://hooks.example.com/audit-2',
      filter: { data: { severity: 'high' } },
    });
    await act('endpoint.secret_rotated', 'POST', `/v1/webhooks/${endpointId}/secret/rotate`, {
      secret: ROTATED_SECRET,
    });
    await act('endpoint.test_sent', 'POST', `/v1/webhooks/${endpointId}/test`);
    await act('endpoint.replay_requested', 'POST', `/v1/webhooks/${endpointId}/replay`, {
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-02T00:00:00.000Z',
    });
    await act('endpoint.recovered', 'POST', `/v1/webhooks/${endpointId}/recover`, {});
    const minted = await act('portal_session.minted', 'POST', '/v1/portal-sessions', {
      read_only: true,
    });
    portalToken = new URL(minted.body.url).hash.replace('#portal=', '');
    await act('endpoint.deleted', 'DELETE', `/v1/webhooks/${endpointId}`);
  });
  afterAll(() => api.close());

  it('lists each action, newest first, with who did it, from where and in which request', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    const entries: any[] = response.body.data;
    expect(entries.map((entry) => entry.action)).toEqual([
      ...[...done].reverse().map((action) => action.action),
      'api_key.created',
    ]);
    expect(entries.map((entry) => entry.request_id)).toEqual([
      ...[...done].reverse().map((action) => action.requestId),
      null,
    ]);
    for (const entry of entries.slice(0, done.length)) {
      expect(entry).toMatchObject({
        id: expect.stringMatching(/^aud_\d+$/),
        actor: { kind: 'api_key', id: keyId, key_hint: expect.any(String) },
        client_address: CLIENT_ADDRESS,
      });
      expect(Date.parse(entry.occurred_at)).toBeGreaterThanOrEqual(beforeActions.getTime() - 1000);
    }
    expect(response.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('shows what each action did, and nothing of its secrets', async () => {
    const { body } = await list();
    const byAction = new Map<string, any>(body.data.map((entry: any) => [entry.action, entry]));
    expect(byAction.get('endpoint.registered')).toMatchObject({
      target: { type: 'endpoint', id: endpointId },
      details: { url: 'https://hooks.example.com/audit', events: ['alert.*'] },
    });
    expect(byAction.get('endpoint.updated').details).toEqual({ changes: ['url', 'filter'] });
    expect(byAction.get('endpoint.test_sent').details).toEqual({
      delivery_id: expect.stringMatching(/^del_/),
    });
    expect(byAction.get('endpoint.replay_requested').details).toEqual({
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-02T00:00:00.000Z',
    });
    expect(byAction.get('endpoint.recovered').details).toEqual({ redrive_abandoned_since: null });
    expect(byAction.get('portal_session.minted')).toMatchObject({
      target: { type: 'portal_link', id: expect.stringMatching(/^pl_/) },
      details: { read_only: true, return_url: null, expires_at: expect.any(String) },
    });
    expect(byAction.get('api_key.created')).toMatchObject({
      target: { type: 'api_key', id: keyId },
      actor: { kind: 'operator' },
      details: { scopes: ['webhooks:manage', 'audit:read'], key_hint: expect.any(String) },
    });
  });

  it('shows a new secret given with PATCH as the field `secret`, never its value', async () => {
    const other = await act('endpoint.registered', 'POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/audit-secret',
      events: ['alert.*'],
      secret: ENDPOINT_SECRET,
    });
    await act('endpoint.updated', 'PATCH', `/v1/webhooks/${other.body.id}`, {
      secret: ROTATED_SECRET,
    });
    const { body } = await list(`?endpoint_id=${other.body.id}&action=endpoint.updated`);
    expect(body.data.map((entry: any) => entry.details)).toEqual([{ changes: ['secret'] }]);
  });

  it('filters by action, endpoint and time', async () => {
    const rotated = await list('?action=endpoint.secret_rotated');
    expect(rotated.body.data.map((entry: any) => entry.target.id)).toEqual([endpointId]);
    const ofEndpoint = await list(`?endpoint_id=${endpointId}`);
    expect(ofEndpoint.body.data.map((entry: any) => entry.action)).toEqual(
      [...done]
        .slice(0, 8)
        .reverse()
        .map((action) => action.action)
        .filter((action) => action !== 'portal_session.minted'),
    );
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await list(`?from=${future}`)).body.data).toEqual([]);
    const untilActions = await list(`?to=${beforeActions.toISOString()}`);
    expect(untilActions.body.data.map((entry: any) => entry.action)).toEqual(['api_key.created']);
    expect((await list(`?from=${future}&to=${beforeActions.toISOString()}`)).status).toBe(400);
    expect((await list('?action=endpoint.degraded')).status).toBe(400);
  });

  it('pages with a cursor, newest first, each entry once', async () => {
    const all = (await list()).body.data.map((entry: any) => entry.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const { body } = await list(query);
      expect(body.data.length).toBeLessThanOrEqual(3);
      paged.push(...body.data.map((entry: any) => entry.id));
      cursor = body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    expect((await list('?cursor=not-ours')).status).toBe(400);
  });

  it("shows none of them to another tenant, nor to the tenant's test environment", async () => {
    const other = await api.newTenantWithKey(['audit:read']);
    const theirs = await list('', other.key);
    expect(theirs.body.data.map((entry: any) => entry.action)).toEqual(['api_key.created']);
    expect(theirs.body.data[0].target.id).toBe(other.keyId);
    const sandbox = await new ApiKeysService(api.dataSource).create({
      tenantId,
      scopes: ['audit:read'],
      environment: 'test',
    });
    const test = await list('', sandbox.key);
    expect(test.body.data.map((entry: any) => entry.target.id)).toEqual([sandbox.record.id]);
  });

  it('answers 403 to a key without audit:read, webhooks:manage included', async () => {
    const manager = await new ApiKeysService(api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'live',
    });
    const response = await list('', manager.key);
    expect(response.status).toBe(403);
  });

  it('reads only the caller tenant range of events_audit_idx', async () => {
    const { sql, parameters } = auditStatement({
      tenantId,
      environment: 'live',
      endpointId,
      before: null,
      take: 51,
    });
    // The test database is small, where reading a partition whole is rightly cheaper: forbidding
    // it asks which index the statement can use at all.
    const plan = await api.dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const [{ 'QUERY PLAN': explained }] = await manager.query(
        `EXPLAIN (FORMAT JSON) ${sql}`,
        parameters,
      );
      return explained[0].Plan as PlanNode;
    });
    const scans = nodesOf(plan).filter((node) => node['Relation Name']?.startsWith('events'));
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans as (PlanNode & { 'Index Cond'?: string })[]) {
      expect(scan['Node Type']).toBe('Index Scan');
      expect(scan['Index Name']).toMatch(/audit_idx$/);
      expect(scan['Index Cond']).toContain('tenant_id');
    }
    expect(nodesOf(plan).map((node) => node['Node Type'])).not.toContain('Sort');
  });

  it('never answers a secret, a key or a portal token', () => {
    expect(answers.length).toBeGreaterThan(5);
    for (const secret of [ENDPOINT_SECRET, ROTATED_SECRET, key, portalToken]) {
      for (const answer of answers) {
        expect(answer).not.toContain(secret);
      }
    }
  });
});
