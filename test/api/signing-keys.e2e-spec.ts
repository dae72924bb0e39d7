import { ed25519SignatureEntries } from '@svc/signing';
import { SigningKeyStore } from '@svc/signing-keys';
import { execFileSync } from 'node:child_process';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http, RunningApi, startApi } from '../support';

const PATH = '/.well-known/webhook-signing-keys.json';
const DAY_MS = 86_400_000;

/** The shell block of docs/api.md that verifies with openssl, as a receiver copies it. */
function documentedOpensslCheck(): string {
  const guide = readFileSync(join(__dirname, '../../docs/api.md'), 'utf8');
  const marker = '<!-- test/api/signing-keys.e2e-spec.ts runs this block -->';
  const block = /```sh\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf(marker)));
  expect(guide.includes(marker) && block).toBeTruthy();
  return block![1];
}

/** Key discovery (ADR 0044): the JWKS of the deployment's Ed25519 keys, public and cacheable. */
describe('GET /.well-known/webhook-signing-keys.json', () => {
  let api: RunningApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  const fetchKeys = (headers: Record<string, string> = {}) =>
    http<{ keys: Array<Record<string, string>> }>(api.baseUrl, 'GET', PATH, { headers });

  it('answers without a credential, making the first key: one public Ed25519 JWK', async () => {
    const response = await fetchKeys();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(response.body.keys).toHaveLength(1);
    const [key] = response.body.keys;
    // Exactly the public members: no `d`, nothing else.
    expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
    expect(key.kid).toMatch(/^whk_[0-9a-z]{26}$/);
    expect(Buffer.from(key.x, 'base64url')).toHaveLength(32);
    // Importable by an implementation the project does not contain.
    await expect(
      webcrypto.subtle.importKey('jwk', key, { name: 'Ed25519' }, false, ['verify']),
    ).resolves.toBeDefined();
  });

  it('gives the same ETag while the keys stay, and a 304 for If-None-Match', async () => {
    const first = await fetchKeys();
    const second = await fetchKeys();
    const etag = first.headers.get('etag')!;
    expect(second.headers.get('etag')).toBe(etag);
    expect(second.body).toEqual(first.body);

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await fetchKeys({ 'if-none-match': ifNoneMatch });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe('');
      expect(cached.headers.get('etag')).toBe(etag);
      expect(cached.headers.get('cache-control')).toBe('public, max-age=300');
    }
    expect((await fetchKeys({ 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('shows both keys during a rotation, the new first, then drops the old after published_until', async () => {
    const before = await fetchKeys();
    const [old] = before.body.keys;
    const rotation = await api.app.get(SigningKeyStore).rotate(DAY_MS, 300_000);

    const during = await fetchKeys({ 'if-none-match': before.headers.get('etag')! });
    expect(during.status).toBe(200);
    expect(during.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(during.body.keys.map((key) => key.kid)).toEqual([rotation.current.kid, old.kid]);
    expect(during.body.keys[1]).toEqual(old);

    // The overlap and the cache time are over: set the dates rather than wait a day.
    await api.dataSource.query(
      `UPDATE webhook_signing_keys
          SET signs_until = now() - interval '10 minutes', published_until = now() - interval '1 second'
        WHERE kid = $1`,
      [old.kid],
    );
    const after = await fetchKeys();
    expect(after.body.keys.map((key) => key.kid)).toEqual([rotation.current.kid]);
  });

  it('is in the OpenAPI document under "signing keys", without security', async () => {
    const { body: document } = await http(api.baseUrl, 'GET', '/v1/openapi.json');
    const operation = document.paths[PATH].get;
    expect(operation.tags).toEqual(['signing keys']);
    expect(operation.security).toBeUndefined();
    expect(operation.responses['200'].headers).toHaveProperty('ETag');
    expect(operation.responses['304']).toBeDefined();
    const jwk = document.components.schemas.WebhookSigningJwk;
    expect(Object.keys(jwk.properties).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  });

  it('verifies with the openssl commands of docs/api.md, and refuses a changed body', async () => {
    const store = api.app.get(SigningKeyStore);
    const { body } = await fetchKeys();
    const id = 'evt_01jbq4m2x3y4z5a6b7c8d9e0f1';
    const timestamp = Math.floor(Date.now() / 1000);
    const raw = '{"type":"alert.created","data":{"title":"Überwachung ✓"}}';
    const entries = ed25519SignatureEntries(
      (await store.signingKeys()).map((key) => key.privateKey),
      id,
      timestamp,
      raw,
    );
    const directory = mkdtempSync(join(tmpdir(), 'svc-openssl-'));
    const check = (x: string, rawBody: string) => {
      writeFileSync(join(directory, 'body.json'), rawBody);
      try {
        execFileSync('bash', ['-c', documentedOpensslCheck()], {
          cwd: directory,
          env: {
            PATH: process.env.PATH,
            X: x,
            WEBHOOK_ID: id,
            WEBHOOK_TIMESTAMP: String(timestamp),
            WEBHOOK_SIGNATURE: `v1,bm90LWNoZWNrZWQ= ${entries.join(' ')}`,
          },
          stdio: 'pipe',
        });
        return true;
      } catch {
        return false;
      }
    };
    try {
      expect(body.keys.length).toBeGreaterThan(0);
      for (const key of body.keys) {
        expect(check(key.x, raw)).toBe(true);
        expect(check(key.x, `${raw} `)).toBe(false);
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
