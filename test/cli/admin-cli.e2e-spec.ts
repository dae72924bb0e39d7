import { hashApiKey } from '@svc/identity';
import { passwordMatches } from '@svc/oauth';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, RunningApi, startApi } from '../support';
import { runSvc } from '../support/cli-runner';

describe('the admin CLI (svc)', () => {
  let api: RunningApi;
  let workdir: string;

  beforeAll(async () => {
    api = await startApi();
    workdir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  });
  afterAll(() => api.close());

  const svc = (
    argv: string[],
    env: NodeJS.ProcessEnv = { DATABASE_URL: api.config.database.url },
  ) => runSvc(argv, { env, cwd: workdir });

  it('migrates idempotently', async () => {
    const run = await svc(['migrate', '--json']);
    expect(run).toMatchObject({ code: 0, json: { applied: [] } });
  });

  it('creates a tenant, then a key that works once and is stored only as a hash', async () => {
    const tenant = await svc(['tenants', 'create', '--name', 'Acme Security', '--json']);
    expect(tenant.code).toBe(0);
    expect(tenant.json).toEqual({
      id: expect.stringMatching(/^ten_/),
      name: 'Acme Security',
      created_at: expect.any(String),
    });

    const created = await svc([
      '--json',
      'api-keys',
      'create',
      '--tenant',
      tenant.json.id,
      '--scopes',
      'webhooks:manage,tenants:read',
    ]);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^key_/),
      tenant_id: tenant.json.id,
      environment: 'live',
      scopes: ['webhooks:manage', 'tenants:read'],
      key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{32}$/),
    });
    const key: string = created.json.key;
    const [row] = await api.dataSource.query('SELECT * FROM api_keys WHERE id = $1', [
      created.json.id,
    ]);
    expect(row.key_hash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key);

    const listed = await svc(['api-keys', 'list', '--tenant', tenant.json.id, '--json']);
    expect(listed.stdout).not.toContain(key);
    expect(listed.json.data[0]).toMatchObject({ id: created.json.id, revoked_at: null });

    const tenants = await http(api.baseUrl, 'GET', '/v1/tenants', { key });
    expect(tenants.body.data[0].id).toBe(tenant.json.id);

    const revoked = await svc(['api-keys', 'revoke', '--id', created.json.id, '--json']);
    expect(revoked.code).toBe(0);
    expect(revoked.json.revoked_at).toEqual(expect.any(String));
    expect((await http(api.baseUrl, 'GET', '/v1/tenants', { key })).status).toBe(401);
  });

  it('makes sandbox keys with --sandbox', async () => {
    const tenant = await svc(['tenants', 'create', '--name', 'Sandbox', '--json']);
    const created = await svc([
      'api-keys',
      'create',
      '--tenant',
      tenant.json.id,
      '--scopes',
      'tenants:read',
      '--sandbox',
      '--json',
    ]);
    expect(created.json.key).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
    expect(created.json.environment).toBe('test');
  });

  it('prints the key once for a person, with a warning to store it', async () => {
    const tenant = await svc(['tenants', 'create', '--name', 'Human', '--json']);
    const run = await svc([
      'api-keys',
      'create',
      '--tenant',
      tenant.json.id,
      '--scopes',
      'tenants:read',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/svc_live_[0-9A-Za-z]{32}/);
    expect(run.stdout).toMatch(/shown only this once/);
  });

  it('refuses unknown scopes at creation with exit code 2, naming them', async () => {
    const tenant = await svc(['tenants', 'create', '--name', 'Scopes', '--json']);
    const run = await svc([
      'api-keys',
      'create',
      '--tenant',
      tenant.json.id,
      '--scopes',
      'webhooks:manage,webhooks:admin',
      '--json',
    ]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stderr)).toEqual({
      error: expect.stringContaining('unknown scopes: webhooks:admin'),
    });
    const keys = await svc(['api-keys', 'list', '--tenant', tenant.json.id, '--json']);
    expect(keys.json.data).toEqual([]);
  });

  it('refuses a key for a tenant that does not exist', async () => {
    const run = await svc([
      'api-keys',
      'create',
      '--tenant',
      'ten_01m7zsng2qwqh89sat5d7t1vpt',
      '--scopes',
      'tenants:read',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no tenant/);
  });

  it('reports a missing key on revoke', async () => {
    const run = await svc(['api-keys', 'revoke', '--id', 'key_01m7zsng2qwqh89sat5d7t1vpt']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no API key/);
  });

  it('reports usage errors with exit code 2', async () => {
    expect((await svc(['tenants', 'create'])).code).toBe(2);
    expect((await svc(['no-such-command'])).code).toBe(2);
  });

  it('says which configuration is missing', async () => {
    const run = await svc(['migrate'], {});
    expect(run.code).toBe(78);
    expect(run.stderr).toMatch(/DATABASE_URL/);
  });

  it('finds the database of `npm start` when DATABASE_URL is unset', async () => {
    mkdirSync(join(workdir, '.data'), { recursive: true });
    writeFileSync(
      join(workdir, '.data', 'local-stack.json'),
      JSON.stringify({ databaseUrl: api.config.database.url }),
    );
    const run = await svc(['tenants', 'list', '--json'], {});
    expect(run.code).toBe(0);
    expect(run.json.data.length).toBeGreaterThan(0);
  });

  it('rebuilds the projections from the log', async () => {
    const { key } = await api.newTenantWithKey(['webhooks:manage']);
    await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/x',
        events: ['alert.*'],
        secret: 'rebuild-secret-123',
      },
    });
    const before = await api.dataSource.query('SELECT * FROM webhook_endpoints ORDER BY id');
    const run = await svc(['projections', 'rebuild', '--json']);
    expect(run).toMatchObject({
      code: 0,
      json: {
        webhook_endpoints: before.length,
        deliveries: 0,
        attempts: 0,
        scheduled: 0,
        orphans_removed: 0,
      },
    });
    expect(await api.dataSource.query('SELECT * FROM webhook_endpoints ORDER BY id')).toEqual(
      before,
    );
  });
});

describe('the admin CLI: users and OAuth clients', () => {
  let api: RunningApi;
  let tenantId: string;

  beforeAll(async () => {
    api = await startApi();
    ({ tenantId } = await api.newTenantWithKey(['tenants:read']));
  });
  afterAll(() => api.close());

  const svc = (argv: string[], stdin = '') =>
    runSvc(argv, { env: { DATABASE_URL: api.config.database.url }, stdin });

  it('creates a user with the password from standard input, stored only as an Argon2id hash', async () => {
    const run = await svc(
      [
        'users',
        'create',
        '--email',
        'Ada@Example.com',
        '--tenant',
        tenantId,
        '--scopes',
        'tenants:read,webhooks:manage',
        '--json',
      ],
      'a long enough passphrase\n',
    );
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      id: expect.stringMatching(/^usr_/),
      email: 'ada@example.com',
      scopes: ['tenants:read', 'webhooks:manage'],
    });
    const [row] = await api.dataSource.query('SELECT * FROM users WHERE id = $1', [run.json.id]);
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(row)).not.toContain('a long enough passphrase');
    expect(await passwordMatches(row.password_hash, 'a long enough passphrase')).toBe(true);

    const again = await svc(
      [
        'users',
        'create',
        '--email',
        'ada@example.com',
        '--tenant',
        tenantId,
        '--scopes',
        'tenants:read',
      ],
      'another long passphrase',
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists already/);
  });

  it.each([
    [['--scopes', 'tenants:read,root'], 'a long enough passphrase', /unknown scopes: root/],
    [['--scopes', 'tenants:read'], 'short', /at least 12/],
    [
      ['--scopes', 'tenants:read', '--email', 'not-an-email'],
      'a long enough passphrase',
      /not an email address/,
    ],
  ])('refuses %j with exit code 2', async (extra, password, message) => {
    const args = [
      'users',
      'create',
      '--email',
      'someone@example.com',
      '--tenant',
      tenantId,
      ...extra,
    ];
    const run = await svc(args, password);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('registers a public client with several exact redirect URIs', async () => {
    const run = await svc([
      'oauth-clients',
      'create',
      '--name',
      'SOC dashboard',
      '--redirect-uri',
      'https://app.example.com/callback',
      '--redirect-uri',
      'http://127.0.0.1:8765/cb',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      client_id: expect.stringMatching(/^cli_/),
      name: 'SOC dashboard',
      redirect_uris: ['https://app.example.com/callback', 'http://127.0.0.1:8765/cb'],
    });
  });

  it.each([
    ['http://app.example.com/callback', /https/],
    ['https://app.example.com/cb#x', /fragment/],
  ])('refuses the redirect URI %s', async (uri, message) => {
    const run = await svc(['oauth-clients', 'create', '--name', 'Bad', '--redirect-uri', uri]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
