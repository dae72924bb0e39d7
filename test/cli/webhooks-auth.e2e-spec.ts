import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { http, RunningApi, startApi } from '../support';
import { runSvc } from '../support/cli-runner';

const TLS = resolve(__dirname, '../fixtures/tls');
const PASSWORD = 'basic-password-never-shown';
const SPLUNK_TOKEN = 'Splunk 6c1b2d3e-4f50-4a6b-8c7d-8e9f0a1b2c3d';
const CLIENT_SECRET = 'client-secret-never-shown';

/**
 * `svc webhooks show|auth|policy` (ADR 0048, issue 34 item 5) against the real registration API:
 * the CLI builds the PATCH from its options and standard input, the API judges it, and the CLI
 * prints what the API shows (never a secret) or each of a 400's problems.
 */
describe('svc webhooks (real API)', () => {
  let api: RunningApi;
  let key: string;
  let workdir: string;

  beforeAll(async () => {
    api = await startApi();
    ({ key } = await api.newTenantWithKey(['webhooks:manage']));
    workdir = await mkdtemp(join(tmpdir(), 'svc-webhooks-'));
  });
  afterAll(async () => {
    await api.close();
    await rm(workdir, { recursive: true, force: true });
  });

  const svc = (argv: string[], stdin?: string) =>
    runSvc([...argv, '--api-key', key, '--api-url', api.baseUrl], {
      env: { LOCAL_DATA_DIR: workdir },
      cwd: workdir,
      stdin,
    });
  const read = async (id: string) =>
    (await http(api.baseUrl, 'GET', `/v1/webhooks/${id}`, { key })).body;
  const register = async () => {
    const registered = await http(api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: 'https://hooks.example.com/cli',
        events: ['alert.*'],
        secret: 'cli-endpoint-secret-01',
      },
    });
    expect(registered.status).toBe(201);
    return registered.body.id as string;
  };
  const expectNoSecretIn = (run: { stdout: string; stderr: string }) => {
    for (const secret of [PASSWORD, SPLUNK_TOKEN, CLIENT_SECRET]) {
      expect(run.stdout + run.stderr).not.toContain(secret);
    }
  };

  it('shows an endpoint in words, and with --json exactly as the API answers GET', async () => {
    const id = await register();
    const shown = await svc(['webhooks', 'show', id]);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout.split('\n')).toEqual([
      `endpoint        ${id}`,
      'url             https://hooks.example.com/cli',
      'events          alert.*',
      'status          active',
      'ordering        unordered',
      'auth            none (deliveries carry only their signatures)',
      "retry schedule  default (the deployment's)",
      "timeout         default (the deployment's)",
      '',
    ]);
    const asJson = await svc(['webhooks', 'show', id, '--json']);
    expect(asJson.code).toBe(0);
    expect(asJson.json).toEqual(await read(id));
  });

  it('sets Basic with the password from standard input, then mTLS from files, showing neither secret', async () => {
    const id = await register();
    const basic = await svc(
      ['webhooks', 'auth', id, '--type', 'basic', '--username', 'svc', '--password-stdin'],
      `${PASSWORD}\n`,
    );
    expect(basic.code).toBe(0);
    expect(basic.stdout).toBe(
      `auth of ${id}: HTTP Basic as svc (password stored encrypted, never shown)\n`,
    );
    expectNoSecretIn(basic);
    expect((await read(id)).auth).toEqual({ type: 'basic', username: 'svc' });

    const mtls = await svc([
      'webhooks',
      'auth',
      id,
      '--type',
      'mtls',
      '--certificate-file',
      join(TLS, 'client.pem'),
      '--private-key-file',
      join(TLS, 'client-key.pem'),
    ]);
    expect(mtls.code).toBe(0);
    expect(mtls.stdout).toContain('mutual TLS with the client certificate');
    expect(mtls.stdout).toContain('CN=svc-webhooks-delivery');
    expect(mtls.stdout).toContain('expires 2126-01-01T00:00:00.000Z');
    expect(mtls.stdout).not.toContain('PRIVATE KEY');
    const shown = await svc(['webhooks', 'show', id, '--json']);
    expect(shown.json.auth).toMatchObject({
      type: 'mtls',
      subject: expect.stringContaining('CN=svc-webhooks-delivery'),
      not_after: '2126-01-01T00:00:00.000Z',
    });
    expect(shown.json).toEqual(await read(id));
  });

  it('sets headers from --header and --header-stdin, and OAuth from a file with its secret', async () => {
    const id = await register();
    const headers = await svc(
      ['webhooks', 'auth', id, '--type', 'headers', '--header', 'X-Channel: c1', '--header-stdin'],
      `Authorization: ${SPLUNK_TOKEN}\n`,
    );
    expect(headers.code).toBe(0);
    expect(headers.stdout).toContain('headers X-Channel, Authorization (values stored encrypted');
    expectNoSecretIn(headers);
    expect((await read(id)).auth).toEqual({
      type: 'headers',
      header_names: ['X-Channel', 'Authorization'],
    });

    const file = join(workdir, 'auth.json');
    await writeFile(
      file,
      JSON.stringify({
        type: 'oauth2_client_credentials',
        token_url: 'https://login.example.com/oauth2/token',
        client_id: 'svc-webhooks',
        client_secret: CLIENT_SECRET,
      }),
    );
    const oauth = await svc(['webhooks', 'auth', id, '--from-file', 'auth.json', '--json']);
    expect(oauth.code).toBe(0);
    expect(oauth.json.auth).toEqual({
      type: 'oauth2_client_credentials',
      token_url: 'https://login.example.com/oauth2/token',
      client_id: 'svc-webhooks',
      scope: null,
      audience: null,
    });
    expectNoSecretIn(oauth);
  });

  it("prints a 400's problems by field and exits 1, leaving auth as it was; --type none removes it", async () => {
    const id = await register();
    await svc(
      ['webhooks', 'auth', id, '--type', 'basic', '--username', 'svc', '--password-stdin'],
      PASSWORD,
    );
    const refused = await svc(['webhooks', 'auth', id, '--type', 'headers', '--header', 'Host: x']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      new RegExp(`^svc: changing the auth of ${id} failed: 400 .*\n {2}auth\\.headers\\.Host: \\S`),
    );
    expect((await read(id)).auth).toEqual({ type: 'basic', username: 'svc' });

    const removed = await svc(['webhooks', 'auth', id, '--type', 'none']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(`auth of ${id}: none (deliveries carry only their signatures)\n`);
    expect((await read(id)).auth).toBeNull();
  });

  it('sets the retry schedule and timeout, refuses what the API refuses, and gives both back to the default', async () => {
    const id = await register();
    const set = await svc([
      'webhooks',
      'policy',
      id,
      '--retry-schedule',
      '10s,1m,1h',
      '--timeout',
      '5',
    ]);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(
      [
        `retry schedule of ${id}: 10s, 1m, 1h (4 attempts at most)`,
        `timeout of ${id}: 5 s`,
        '',
      ].join('\n'),
    );
    expect(await read(id)).toMatchObject({
      retry_schedule: ['10s', '1m', '1h'],
      timeout_seconds: 5,
    });

    const refused = await svc([
      'webhooks',
      'policy',
      id,
      '--retry-schedule',
      '10s,500ms',
      '--timeout',
      '11',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('\n  retry_schedule[1]: ');
    expect(refused.stderr).toContain('\n  timeout_seconds: ');

    const reset = await svc([
      'webhooks',
      'policy',
      id,
      '--default-retry-schedule',
      '--default-timeout',
      '--json',
    ]);
    expect(reset.code).toBe(0);
    expect(reset.json).toMatchObject({ id, retry_schedule: null, timeout_seconds: null });
    expect(await read(id)).toMatchObject({ retry_schedule: null, timeout_seconds: null });
  });

  it.each<[string, string[], RegExp]>([
    [
      'a --header without a colon',
      ['--type', 'headers', '--header', 'Host'],
      /--header #1: give a header as 'Name: value'/,
    ],
    [
      'basic without --password-stdin',
      ['--type', 'basic', '--username', 'svc'],
      /--type basic needs --password-stdin/,
    ],
    ['an unknown type', ['--type', 'kerberos'], /argument 'kerberos' is invalid/],
    [
      'a certificate file that is not there',
      ['--type', 'mtls', '--certificate-file', 'nope.pem', '--private-key-file', 'nope-key.pem'],
      /--certificate-file: cannot read nope\.pem/,
    ],
  ])('refuses %s as a usage error (exit 2), changing nothing', async (_, args, message) => {
    const id = await register();
    const run = await svc(['webhooks', 'auth', id, ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect((await read(id)).auth).toBeNull();
  });

  it('says so when the endpoint is not there (exit 1) or no key is given (exit 2)', async () => {
    const missing = await svc(['webhooks', 'show', 'wh_01jd8x3q9v7k2m4n6p8r0s2t4w']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^svc: reading wh_01jd8x3q9v7k2m4n6p8r0s2t4w failed: 404 /);

    const noKey = await runSvc(['webhooks', 'show', 'wh_x', '--api-url', api.baseUrl], {
      env: { LOCAL_DATA_DIR: workdir },
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--api-key or SVC_API_KEY');
  });
});
