import { ApiKeysService } from '@svc/identity';
import { http, RunningApi, startApi } from '../support';

const CONSOLE_URL = 'https://console.example.com/console/';
const INSUFFICIENT_SCOPE = 'urn:svc:problem:insufficient-scope';
const UNAUTHENTICATED = 'urn:svc:problem:unauthenticated';

/** Portal sessions (issue 31, ADR 0042): one-time links, sessions, read-only, sign-out. */
describe('portal sessions', () => {
  const logLines: string[] = [];
  let api: RunningApi;
  let tenantA: { tenantId: string; key: string; keyId: string };
  let tenantB: { tenantId: string; key: string; keyId: string };
  let sandboxKeyA: string;

  beforeAll(async () => {
    api = await startApi({ CONSOLE_URL, LOG_LEVEL: 'info' }, { logLines });
    tenantA = await api.newTenantWithKey(['webhooks:manage']);
    tenantB = await api.newTenantWithKey(['webhooks:manage']);
    ({ key: sandboxKeyA } = await new ApiKeysService(api.dataSource).create({
      tenantId: tenantA.tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    }));
  });
  afterAll(() => api.close());

  const register = async (key: string, host: string): Promise<string> => {
    const response = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: { url: `https://${host}/in`, events: ['alert.created'], secret: 'x'.repeat(24) },
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };

  const mint = (key: string, json: unknown = {}) =>
    http(api.baseUrl, 'POST', '/v1/portal-sessions', { key, json });

  /** The link token of a freshly minted link. */
  const mintLink = async (key: string, json: unknown = {}): Promise<string> => {
    const response = await mint(key, json);
    expect(response.status).toBe(201);
    return new URL(response.body.url as string).hash.slice('#portal='.length);
  };

  const exchange = (token: unknown) =>
    http(api.baseUrl, 'POST', '/v1/portal-sessions/exchange', { json: { token } });

  /** A session token, through a link minted by `key`. */
  const openSession = async (key: string, json: unknown = {}): Promise<string> => {
    const response = await exchange(await mintLink(key, json));
    expect(response.status).toBe(201);
    return response.body.session_token as string;
  };

  const expectProblem = (
    response: { status: number; headers: Headers; body: any },
    status: number,
    type: string,
  ) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status, type });
  };

  it('mints a one-time link into the console fragment, and exchanges it for a session', async () => {
    const before = Date.now();
    const minted = await mint(tenantA.key, { return_url: 'https://app.example.com/webhooks' });
    expect(minted.status).toBe(201);
    expect(minted.headers.get('cache-control')).toBe('no-store');
    expect(minted.body).toEqual({
      url: expect.stringMatching(
        /^https:\/\/console\.example\.com\/console\/#portal=svc_pl_[\w-]{43}$/,
      ),
      expires_at: expect.stringMatching(/Z$/),
      read_only: false,
    });
    const linkLifetime = Date.parse(minted.body.expires_at) - before;
    expect(linkLifetime).toBeGreaterThan(590_000);
    expect(linkLifetime).toBeLessThan(610_000);

    const token = new URL(minted.body.url).hash.slice('#portal='.length);
    const opened = await exchange(token);
    expect(opened.status).toBe(201);
    expect(opened.headers.get('cache-control')).toBe('no-store');
    expect(opened.body).toEqual({
      session_token: expect.stringMatching(/^svc_ps_[\w-]{43}$/),
      expires_at: expect.stringMatching(/Z$/),
      read_only: false,
      environment: 'live',
      tenant_id: tenantA.tenantId,
      return_url: 'https://app.example.com/webhooks',
    });
    const sessionLifetime = Date.parse(opened.body.expires_at) - before;
    expect(sessionLifetime).toBeGreaterThan(3_590_000);
    expect(sessionLifetime).toBeLessThan(3_610_000);

    // Only digests are stored.
    const stored = JSON.stringify(
      await api.dataSource.query(
        `SELECT l.*, s.* FROM portal_links l JOIN portal_sessions s ON s.link_id = l.id
          WHERE l.tenant_id = $1`,
        [tenantA.tenantId],
      ),
    );
    expect(stored).not.toContain(token.slice('svc_pl_'.length));
    expect(stored).not.toContain(opened.body.session_token.slice('svc_ps_'.length));
  });

  it("lets a session see only its tenant's endpoints of its environment", async () => {
    const liveA = await register(tenantA.key, 'a-live.example.com');
    const sandboxA = await register(sandboxKeyA, 'a-sandbox.example.com');
    const liveB = await register(tenantB.key, 'b-live.example.com');
    const ids = async (session: string) => {
      const list = await http(api.baseUrl, 'GET', '/v1/webhooks?limit=100', { key: session });
      expect(list.status).toBe(200);
      return (list.body.data as { id: string }[]).map((endpoint) => endpoint.id);
    };

    const sessionA = await openSession(tenantA.key);
    expect(await ids(sessionA)).toContain(liveA);
    expect(await ids(sessionA)).not.toContain(sandboxA);
    expect(await ids(sessionA)).not.toContain(liveB);
    const other = await http(api.baseUrl, 'GET', `/v1/webhooks/${liveB}`, { key: sessionA });
    expectProblem(other, 404, 'urn:svc:problem:not-found');

    const sandboxOpened = await exchange(await mintLink(sandboxKeyA));
    expect(sandboxOpened.body.environment).toBe('test');
    expect(await ids(sandboxOpened.body.session_token)).toEqual([sandboxA]);

    const sessionB = await openSession(tenantB.key);
    expect(await ids(sessionB)).toEqual([liveB]);
    // webhooks:manage and nothing more, whatever the minting key holds.
    const tenants = await http(api.baseUrl, 'GET', '/v1/tenants', { key: sessionB });
    expectProblem(tenants, 403, INSUFFICIENT_SCOPE);
  });

  it('works once: a second exchange is a 401 that says why in plain words', async () => {
    const token = await mintLink(tenantA.key);
    expect((await exchange(token)).status).toBe(201);
    const again = await exchange(token);
    expectProblem(again, 401, UNAUTHENTICATED);
    expect(again.body.detail).toMatch(/invalid, already used or expired/);
    expect(again.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="svc", error="invalid_token"/,
    );
  });

  it("gives a used link's return_url back with the 401, and nothing of an unknown link", async () => {
    const back = 'https://app.example.com/settings/webhooks';
    const token = await mintLink(tenantA.key, { return_url: back });
    expect((await exchange(token)).status).toBe(201);
    const used = await exchange(token);
    expectProblem(used, 401, UNAUTHENTICATED);
    expect(used.body.return_url).toBe(back);

    const withoutReturn = await mintLink(tenantA.key);
    await exchange(withoutReturn);
    expect((await exchange(withoutReturn)).body).not.toHaveProperty('return_url');
    expect((await exchange(`svc_pl_${'b'.repeat(43)}`)).body).not.toHaveProperty('return_url');
  });

  it('opens exactly one session when the same link is exchanged many times at once', async () => {
    const token = await mintLink(tenantA.key);
    const answers = await Promise.all(Array.from({ length: 8 }, () => exchange(token)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 401, 401, 401, 401, 401, 401, 401]);
  });

  it('refuses unknown, malformed, expired and missing link tokens', async () => {
    expectProblem(await exchange(`svc_pl_${'a'.repeat(43)}`), 401, UNAUTHENTICATED);
    expectProblem(await exchange('svc_pl_short'), 401, UNAUTHENTICATED);
    expectProblem(await exchange(await openSession(tenantA.key)), 401, UNAUTHENTICATED);
    const expired = await mintLink(tenantA.key);
    await api.dataSource.query(
      `UPDATE portal_links SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND used_at IS NULL`,
      [tenantA.tenantId],
    );
    expectProblem(await exchange(expired), 401, UNAUTHENTICATED);
    expectProblem(await exchange(undefined), 400, 'urn:svc:problem:invalid-request');
    expectProblem(await exchange(42), 400, 'urn:svc:problem:invalid-request');
  });

  it('ends a session at its expiry, at once (no cache)', async () => {
    const session = await openSession(tenantA.key);
    expect((await http(api.baseUrl, 'GET', '/v1/webhooks', { key: session })).status).toBe(200);
    await api.dataSource.query(
      `UPDATE portal_sessions SET expires_at = now() - interval '1 second' WHERE ended_at IS NULL AND tenant_id = $1`,
      [tenantA.tenantId],
    );
    const after = await http(api.baseUrl, 'GET', '/v1/webhooks', { key: session });
    expectProblem(after, 401, UNAUTHENTICATED);
    expect(after.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const malformed = await http(api.baseUrl, 'GET', '/v1/webhooks', { key: 'svc_ps_short' });
    expectProblem(malformed, 401, UNAUTHENTICATED);
  });

  it('lets a read-only session read and nothing else, but sign out', async () => {
    const endpoint = await register(tenantA.key, 'read-only.example.com');
    const link = await mint(tenantA.key, { read_only: true });
    expect(link.body.read_only).toBe(true);
    const opened = await exchange(new URL(link.body.url).hash.slice('#portal='.length));
    expect(opened.body.read_only).toBe(true);
    const session = opened.body.session_token as string;

    expect((await http(api.baseUrl, 'GET', '/v1/webhooks', { key: session })).status).toBe(200);
    expect(
      (await http(api.baseUrl, 'HEAD', `/v1/webhooks/${endpoint}`, { key: session })).status,
    ).toBe(200);
    const writes = [
      await http(api.baseUrl, 'POST', '/v1/webhooks', {
        key: session,
        json: {
          url: 'https://x.example.com/in',
          events: ['alert.created'],
          secret: 'x'.repeat(24),
        },
      }),
      await http(api.baseUrl, 'PATCH', `/v1/webhooks/${endpoint}`, {
        key: session,
        json: { events: ['alert.*'] },
      }),
      await http(api.baseUrl, 'DELETE', `/v1/webhooks/${endpoint}`, { key: session }),
      await mint(session),
    ];
    for (const refused of writes) {
      expectProblem(refused, 403, INSUFFICIENT_SCOPE);
      expect(refused.body.detail).toMatch(/read-only/);
      expect(refused.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
    }
    expect(
      (await http(api.baseUrl, 'GET', `/v1/webhooks/${endpoint}`, { key: tenantA.key })).status,
    ).toBe(200);

    const signOut = await http(api.baseUrl, 'DELETE', '/v1/portal-sessions/current', {
      key: session,
    });
    expect(signOut.status).toBe(204);
    expectProblem(
      await http(api.baseUrl, 'GET', '/v1/webhooks', { key: session }),
      401,
      UNAUTHENTICATED,
    );
  });

  it('signs a session out, after which its token fails', async () => {
    const session = await openSession(tenantA.key);
    expect(
      (await http(api.baseUrl, 'DELETE', '/v1/portal-sessions/current', { key: session })).status,
    ).toBe(204);
    expectProblem(
      await http(api.baseUrl, 'GET', '/v1/webhooks', { key: session }),
      401,
      UNAUTHENTICATED,
    );
    expectProblem(
      await http(api.baseUrl, 'DELETE', '/v1/portal-sessions/current', { key: session }),
      401,
      UNAUTHENTICATED,
    );
    const byKey = await http(api.baseUrl, 'DELETE', '/v1/portal-sessions/current', {
      key: tenantA.key,
    });
    expectProblem(byKey, 404, 'urn:svc:problem:not-found');
  });

  it('never lets a session mint another', async () => {
    const session = await openSession(tenantA.key);
    const refused = await mint(session, { read_only: false });
    expectProblem(refused, 403, INSUFFICIENT_SCOPE);
    expect(refused.body.detail).toMatch(/portal session cannot open another/);
  });

  it('needs webhooks:manage to mint, and a valid return_url', async () => {
    const { key: reader } = await api.newTenantWithKey(['tenants:read']);
    expectProblem(await mint(reader), 403, INSUFFICIENT_SCOPE);
    expectProblem(
      await http(api.baseUrl, 'POST', '/v1/portal-sessions', { json: {} }),
      401,
      UNAUTHENTICATED,
    );
    for (const body of [
      { return_url: 'http://app.example.com/' },
      { return_url: 'javascript:alert(1)' },
      { return_url: `https://app.example.com/${'a'.repeat(2048)}` },
      { read_only: 'yes' },
      { scopes: ['tenants:read'] },
    ]) {
      const refused = await mint(tenantA.key, body);
      expectProblem(refused, 400, 'urn:svc:problem:invalid-request');
      expect(refused.body.errors[0].field).toBe(Object.keys(body)[0]);
    }
    expect((await mint(tenantA.key, { return_url: 'http://localhost:3000/back' })).status).toBe(
      201,
    );
  });

  it('ends the sessions of a revoked minting key at once', async () => {
    const minter = await api.newTenantWithKey(['webhooks:manage']);
    const session = await openSession(minter.key);
    const unused = await mintLink(minter.key);
    expect((await http(api.baseUrl, 'GET', '/v1/webhooks', { key: session })).status).toBe(200);
    expect(await new ApiKeysService(api.dataSource).revoke(minter.keyId)).toBe(true);
    expectProblem(
      await http(api.baseUrl, 'GET', '/v1/webhooks', { key: session }),
      401,
      UNAUTHENTICATED,
    );
    expectProblem(await exchange(unused), 401, UNAUTHENTICATED);
  });

  it('refuses a session token in the query string, as an API key there', async () => {
    const session = await openSession(tenantA.key);
    for (const query of [`token=${session}`, `q=${session}`]) {
      const response = await http(api.baseUrl, 'GET', `/v1/webhooks?${query}`, { key: session });
      expectProblem(response, 400, 'urn:svc:problem:credentials-outside-header');
    }
  });

  it('deletes links and sessions expired for more than a day when the next link is minted', async () => {
    await openSession(tenantB.key);
    await api.dataSource.query(
      `UPDATE portal_sessions SET expires_at = now() - interval '25 hours' WHERE tenant_id = $1`,
      [tenantB.tenantId],
    );
    await api.dataSource.query(
      `UPDATE portal_links SET expires_at = now() - interval '25 hours' WHERE tenant_id = $1`,
      [tenantB.tenantId],
    );
    await mintLink(tenantA.key);
    const [{ count }] = await api.dataSource.query(
      `SELECT (SELECT count(*) FROM portal_links WHERE tenant_id = $1)
            + (SELECT count(*) FROM portal_sessions WHERE tenant_id = $1) AS count`,
      [tenantB.tenantId],
    );
    expect(Number(count)).toBe(0);
  });

  it('never writes a link or session token to the logs', async () => {
    const minted = await mint(tenantA.key);
    const link = new URL(minted.body.url).hash.slice('#portal='.length);
    const session = (await exchange(link)).body.session_token as string;
    await exchange(link);
    await http(api.baseUrl, 'GET', '/v1/webhooks', { key: session });
    await http(api.baseUrl, 'GET', `/v1/webhooks?token=${session}`);
    await http(api.baseUrl, 'GET', `/v1/webhooks/${session}`, { key: session });
    await http(api.baseUrl, 'GET', `/v1/webhooks/${link}`, { key: session });
    await http(api.baseUrl, 'DELETE', '/v1/portal-sessions/current', { key: session });

    const logs = logLines.join('');
    expect(logs).toContain('"route":"/v1/portal-sessions/exchange"');
    for (const token of [link, session]) {
      expect(logs).not.toContain(token);
      expect(logs).not.toContain(token.slice('svc_pl_'.length));
    }
  });
});
