import { newId } from '@svc/contracts';
import { SecretCipher } from '@svc/secrets';
import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';

/** How long receivers may cache the JWKS: the API's `max-age`, and part of a retired key's life. */
export const JWKS_MAX_AGE_SECONDS = 300;

/**
 * The lock that serialises making keys: engines starting at once, and a rotation meanwhile, each
 * see the others' key before deciding to make one. A fixed number: the ASCII of "whk_keys" read as
 * a 64-bit integer (0x77686b5f6b657973), unlikely to meet another lock of the database.
 */
const KEY_MAKING_LOCK = '8604245145659210099';

/** What may be shown about a key: never its private half. */
export interface SigningKeyInfo {
  kid: string;
  createdAt: Date;
  /** Null while the key is current. */
  signsUntil: Date | null;
  /** Null while the key is current. */
  publishedUntil: Date | null;
}

export interface PublishedSigningKey extends SigningKeyInfo {
  publicKey: KeyObject;
}

/** A key the engine signs with: decrypted, held in memory only. */
export interface PrivateSigningKey {
  kid: string;
  privateKey: KeyObject;
}

export interface Rotation {
  current: SigningKeyInfo;
  /** The keys that were current before: normally one, none on a first rotation. */
  retired: SigningKeyInfo[];
}

interface KeyRow {
  kid: string;
  public_key: Buffer;
  private_key_encrypted: string;
  created_at: Date;
  signs_until: Date | null;
  published_until: Date | null;
}

const INFO_COLUMNS = 'kid, created_at, signs_until, published_until';

function infoOf(row: Omit<KeyRow, 'public_key' | 'private_key_encrypted'>): SigningKeyInfo {
  return {
    kid: row.kid,
    createdAt: row.created_at,
    signsUntil: row.signs_until,
    publishedUntil: row.published_until,
  };
}

/** The ciphertext is bound to its kid: copied onto another row, it does not decrypt. */
const cipherContextOf = (kid: string) => `webhook-signing-key:${kid}`;

/**
 * The deployment's Ed25519 signing keys (ADR 0044) in `webhook_signing_keys`: one current key,
 * and after a rotation the previous ones while they still sign or are still published. Private
 * keys are sealed with the app's SecretCipher and leave this class only as KeyObjects.
 */
export class SigningKeyStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: SecretCipher,
  ) {}

  /** The current key, made first if there is none (under the lock: one key however many ask). */
  async ensureCurrentKey(): Promise<SigningKeyInfo> {
    const current = await this.currentOf(this.dataSource.manager);
    if (current) {
      return current;
    }
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(${KEY_MAKING_LOCK})`);
      return (await this.currentOf(manager)) ?? (await this.insertKey(manager, new Date()));
    });
  }

  /**
   * Makes a new current key. Each key current until now keeps signing for `overlapMs` (engines
   * pick the new key up within a minute, receivers' caches within `cacheMs`), and stays published
   * `cacheMs` longer, so that a receiver with a stale key set still verifies its last signature.
   */
  async rotate(overlapMs: number, cacheMs: number, now = new Date()): Promise<Rotation> {
    if (!(overlapMs >= 0) || !(cacheMs >= 0)) {
      throw new RangeError('the overlap and the cache time are durations of zero or more');
    }
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(${KEY_MAKING_LOCK})`);
      const [retired] = await manager.query<[Array<Omit<KeyRow, 'public_key'>>, number]>(
        `UPDATE webhook_signing_keys SET signs_until = $1, published_until = $2
          WHERE signs_until IS NULL RETURNING ${INFO_COLUMNS}`,
        [new Date(now.getTime() + overlapMs), new Date(now.getTime() + overlapMs + cacheMs)],
      );
      const current = await this.insertKey(manager, now);
      return { current, retired: retired.map(infoOf) };
    });
  }

  /**
   * The private keys that sign at `now`, newest first. A key the configured encryption keys
   * cannot open is left out and named to `onUndecryptable` (its kid only).
   */
  async signingKeys(
    now = new Date(),
    onUndecryptable: (kid: string, error: unknown) => void = () => undefined,
  ): Promise<PrivateSigningKey[]> {
    const rows = await this.dataSource.query<Pick<KeyRow, 'kid' | 'private_key_encrypted'>[]>(
      `SELECT kid, private_key_encrypted FROM webhook_signing_keys
        WHERE signs_until IS NULL OR signs_until > $1
        ORDER BY created_at DESC, kid DESC`,
      [now],
    );
    const keys: PrivateSigningKey[] = [];
    for (const row of rows) {
      try {
        const der = this.cipher.decrypt(row.private_key_encrypted, cipherContextOf(row.kid));
        keys.push({
          kid: row.kid,
          privateKey: createPrivateKey({
            key: Buffer.from(der, 'base64'),
            format: 'der',
            type: 'pkcs8',
          }),
        });
      } catch (error) {
        onUndecryptable(row.kid, error);
      }
    }
    return keys;
  }

  /** The public keys a receiver may meet at `now`, newest first: the JWKS. */
  async publishedKeys(now = new Date()): Promise<PublishedSigningKey[]> {
    const rows = await this.dataSource.query<Omit<KeyRow, 'private_key_encrypted'>[]>(
      `SELECT ${INFO_COLUMNS}, public_key FROM webhook_signing_keys
        WHERE published_until IS NULL OR published_until > $1
        ORDER BY created_at DESC, kid DESC`,
      [now],
    );
    return rows.map((row) => ({ ...infoOf(row), publicKey: publicKeyOfRaw(row.public_key) }));
  }

  /** Every key, newest first, without key material. */
  async list(): Promise<SigningKeyInfo[]> {
    const rows = await this.dataSource.query<Omit<KeyRow, 'public_key'>[]>(
      `SELECT ${INFO_COLUMNS} FROM webhook_signing_keys ORDER BY created_at DESC, kid DESC`,
    );
    return rows.map(infoOf);
  }

  private async currentOf(manager: EntityManager): Promise<SigningKeyInfo | null> {
    const [row] = await manager.query<Omit<KeyRow, 'public_key'>[]>(
      `SELECT ${INFO_COLUMNS} FROM webhook_signing_keys WHERE signs_until IS NULL`,
    );
    return row ? infoOf(row) : null;
  }

  private async insertKey(manager: EntityManager, now: Date): Promise<SigningKeyInfo> {
    const kid = newId('whk');
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const sealed = this.cipher.encrypt(
      privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      cipherContextOf(kid),
    );
    await manager.query(
      `INSERT INTO webhook_signing_keys (kid, public_key, private_key_encrypted, created_at)
       VALUES ($1, $2, $3, $4)`,
      [kid, rawPublicKeyOf(publicKey), sealed, now],
    );
    return { kid, createdAt: now, signsUntil: null, publishedUntil: null };
  }
}

/** The 32 bytes of an Ed25519 public key (the JWK's `x`). */
function rawPublicKeyOf(publicKey: KeyObject): Buffer {
  const { x } = publicKey.export({ format: 'jwk' });
  return Buffer.from(x!, 'base64url');
}

function publicKeyOfRaw(raw: Buffer): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
}
