import { SigningKeyStore } from '@svc/signing-keys';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, RunningApi, startApi } from '../support';
import { runSvc } from '../support/cli-runner';

const HOUR_MS = 3_600_000;

/** `svc signing-keys rotate | list` (ADR 0044), against the API's database and encryption key. */
describe('svc signing-keys', () => {
  let api: RunningApi;
  let workdir: string;

  beforeAll(async () => {
    api = await startApi();
    workdir = mkdtempSync(join(tmpdir(), 'svc-cli-keys-'));
  });
  afterAll(() => api.close());

  const svc = (argv: string[]) =>
    runSvc(argv, {
      env: {
        DATABASE_URL: api.config.database.url,
        SECRET_ENCRYPTION_KEY: api.config.secrets.encryptionKeys[0],
      },
      cwd: workdir,
    });

  it('lists no key before the first', async () => {
    expect(await svc(['signing-keys', 'list', '--json'])).toMatchObject({
      code: 0,
      json: { data: [] },
    });
    expect((await svc(['signing-keys', 'list'])).stdout).toMatch(/no signing key yet/);
  });

  it('rotates with an overlap: the old key signs through it, published 5 minutes longer', async () => {
    const first = await svc(['signing-keys', 'rotate', '--json']);
    expect(first).toMatchObject({ code: 0, json: { retired: [] } });
    expect(first.json.current).toEqual({
      kid: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
      created_at: expect.any(String),
      signs_until: null,
      published_until: null,
    });

    const before = Date.now();
    const second = await svc(['--json', 'signing-keys', 'rotate', '--overlap', '2h']);
    expect(second.code).toBe(0);
    const [retired] = second.json.retired;
    expect(retired.kid).toBe(first.json.current.kid);
    const signsUntil = Date.parse(retired.signs_until);
    expect(signsUntil).toBeGreaterThanOrEqual(before + 2 * HOUR_MS);
    expect(signsUntil).toBeLessThan(Date.now() + 2 * HOUR_MS);
    expect(Date.parse(retired.published_until) - signsUntil).toBe(300_000);

    // Sealed with the key the apps use: the API's store opens both.
    const undecryptable: string[] = [];
    const signing = await api.app
      .get(SigningKeyStore)
      .signingKeys(new Date(), (kid) => undecryptable.push(kid));
    expect(signing.map((key) => key.kid)).toEqual([second.json.current.kid, retired.kid]);
    expect(undecryptable).toEqual([]);
    const jwks = await http(api.baseUrl, 'GET', '/.well-known/webhook-signing-keys.json');
    expect(jwks.body.keys.map((key: { kid: string }) => key.kid)).toEqual([
      second.json.current.kid,
      retired.kid,
    ]);
  });

  it('lists kids and dates, newest first, and no key material', async () => {
    const listed = await svc(['signing-keys', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.json.data).toHaveLength(2);
    expect(Object.keys(listed.json.data[0]).sort()).toEqual([
      'created_at',
      'kid',
      'published_until',
      'signs_until',
    ]);
    const rows = await api.dataSource.query<{ sealed: string }[]>(
      'SELECT private_key_encrypted AS sealed FROM webhook_signing_keys',
    );
    const human = await svc(['signing-keys', 'list']);
    expect(human.stdout).toMatch(/current/);
    expect(human.stdout).toMatch(/signing until/);
    for (const { sealed } of rows) {
      for (const output of [listed.stdout, human.stdout]) {
        expect(output).not.toContain(sealed);
      }
    }
  });

  it.each([['soon'], ['-1h'], ['8d'], ['24']])('refuses --overlap %s (exit 2)', async (overlap) => {
    const run = await svc(['signing-keys', 'rotate', '--overlap', overlap]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--overlap/);
  });
});
