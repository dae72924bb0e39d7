import { isId } from '@svc/contracts';
import { openDataSource } from '@svc/database';
import { SecretCipher } from '@svc/secrets';
import { ed25519SignatureEntries, publicJwkOf, verifyEd25519Webhook } from '@svc/signing';
import { SigningKeyStore } from '@svc/signing-keys';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { suiteDatabase } from './delivery-tables';

const HOUR = 3_600_000;
const CACHE_MS = 300_000;

/**
 * The deployment's Ed25519 keys in PostgreSQL (ADR 0044): one current key however many engines
 * start at once, rotation with an overlap, private keys sealed at rest.
 */
describe('the signing key store', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let otherPool: DataSource;
  const encryptionKey = randomBytes(32).toString('base64');
  const cipher = new SecretCipher([encryptionKey]);
  let store: SigningKeyStore;

  beforeAll(async () => {
    db = await suiteDatabase();
    otherPool = await openDataSource({ url: db.url, poolSize: 4 });
    store = new SigningKeyStore(db.dataSource, cipher);
  });
  afterAll(async () => {
    await otherPool.destroy();
    await db.close();
  });
  beforeEach(async () => {
    await db.dataSource.query('DELETE FROM webhook_signing_keys');
  });

  it('makes the first key when asked and then keeps it', async () => {
    const first = await store.ensureCurrentKey();
    expect(isId('whk', first.kid)).toBe(true);
    expect(first.signsUntil).toBeNull();
    expect(first.publishedUntil).toBeNull();
    await expect(store.ensureCurrentKey()).resolves.toEqual(first);
    expect(await store.list()).toEqual([first]);
  });

  it('makes exactly one key when two engines ask at once, many times each', async () => {
    const engines = [db.dataSource, otherPool].map((pool) => new SigningKeyStore(pool, cipher));
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => engines[i % 2].ensureCurrentKey()),
    );
    expect(new Set(answers.map((key) => key.kid)).size).toBe(1);
    const [{ count }] = await db.dataSource.query<{ count: string }[]>(
      'SELECT count(*) FROM webhook_signing_keys',
    );
    expect(Number(count)).toBe(1);
  });

  it('refuses a second current key even past the lock (the partial unique index)', async () => {
    await store.ensureCurrentKey();
    await expect(
      db.dataSource.query(
        `INSERT INTO webhook_signing_keys (kid, public_key, private_key_encrypted)
         VALUES ('whk_intruder', $1, 'x')`,
        [randomBytes(32)],
      ),
    ).rejects.toThrow(/webhook_signing_keys_one_current/);
  });

  it('rotates: the old key signs through the overlap and stays published a cache time longer', async () => {
    const old = await store.ensureCurrentKey();
    const now = new Date();
    const { current, retired } = await store.rotate(24 * HOUR, CACHE_MS, now);
    expect(current.kid).not.toBe(old.kid);
    expect(retired).toEqual([
      {
        ...old,
        signsUntil: new Date(now.getTime() + 24 * HOUR),
        publishedUntil: new Date(now.getTime() + 24 * HOUR + CACHE_MS),
      },
    ]);

    const kidsOf = (keys: { kid: string }[]) => keys.map((key) => key.kid);
    expect(kidsOf(await store.signingKeys(now))).toEqual([current.kid, old.kid]);
    expect(kidsOf(await store.publishedKeys(now))).toEqual([current.kid, old.kid]);
    const afterOverlap = new Date(now.getTime() + 24 * HOUR + 1);
    expect(kidsOf(await store.signingKeys(afterOverlap))).toEqual([current.kid]);
    expect(kidsOf(await store.publishedKeys(afterOverlap))).toEqual([current.kid, old.kid]);
    const afterCache = new Date(now.getTime() + 24 * HOUR + CACHE_MS + 1);
    expect(kidsOf(await store.publishedKeys(afterCache))).toEqual([current.kid]);
    expect(kidsOf(await store.list())).toEqual([current.kid, old.kid]);
    await expect(store.ensureCurrentKey()).resolves.toEqual(current);
  });

  it('makes the first key on a rotation with none before, retiring nothing', async () => {
    const { current, retired } = await store.rotate(HOUR, CACHE_MS);
    expect(retired).toEqual([]);
    expect((await store.list()).map((key) => key.kid)).toEqual([current.kid]);
  });

  it('signs with the stored private key what the published public key verifies', async () => {
    const { kid } = await store.ensureCurrentKey();
    const [signing] = await store.signingKeys();
    const [published] = await store.publishedKeys();
    expect(signing.kid).toBe(kid);
    const now = new Date();
    const at = Math.floor(now.getTime() / 1000);
    const [entry] = ed25519SignatureEntries([signing.privateKey], 'evt_1', at, '{}');
    const headers = { id: 'evt_1', timestamp: String(at), signature: entry };
    const jwks = [publicJwkOf(published.publicKey, published.kid)];
    expect(verifyEd25519Webhook('{}', headers, jwks, { now })).toBe(true);
  });

  it('keeps the private key sealed: not in clear, and bound to its kid', async () => {
    const { kid } = await store.ensureCurrentKey();
    const [signing] = await store.signingKeys();
    const der = signing.privateKey.export({ format: 'der', type: 'pkcs8' });
    const [row] = await db.dataSource.query<{ sealed: string }[]>(
      'SELECT private_key_encrypted AS sealed FROM webhook_signing_keys WHERE kid = $1',
      [kid],
    );
    expect(row.sealed).toMatch(/^v1\./);
    for (const clear of [der.toString('base64'), der.toString('hex'), der.toString('base64url')]) {
      expect(row.sealed).not.toContain(clear.slice(-40));
    }

    // Copied onto another key's row, the ciphertext does not open: the kid is its context.
    const { current } = await store.rotate(HOUR, CACHE_MS);
    await db.dataSource.query(
      'UPDATE webhook_signing_keys SET private_key_encrypted = $1 WHERE kid = $2',
      [row.sealed, current.kid],
    );
    const undecryptable: string[] = [];
    const keys = await store.signingKeys(new Date(), (badKid) => undecryptable.push(badKid));
    expect(keys.map((key) => key.kid)).toEqual([kid]);
    expect(undecryptable).toEqual([current.kid]);
  });

  it('leaves out, by kid, the keys the configured encryption keys cannot open', async () => {
    const { kid } = await store.ensureCurrentKey();
    const stranger = new SigningKeyStore(
      db.dataSource,
      new SecretCipher([randomBytes(32).toString('base64')]),
    );
    const undecryptable: string[] = [];
    await expect(
      stranger.signingKeys(new Date(), (bad) => undecryptable.push(bad)),
    ).resolves.toEqual([]);
    expect(undecryptable).toEqual([kid]);
    // After SECRET_ENCRYPTION_KEY rotation (new key first, old still listed) the key still opens.
    const rotatedConfig = new SigningKeyStore(
      db.dataSource,
      new SecretCipher([randomBytes(32).toString('base64'), encryptionKey]),
    );
    expect((await rotatedConfig.signingKeys()).map((key) => key.kid)).toEqual([kid]);
  });

  it('refuses a negative overlap', async () => {
    await expect(store.rotate(-1, CACHE_MS)).rejects.toThrow(RangeError);
  });
});
