import type { PrivateSigningKey, SigningKeyInfo } from '@svc/signing-keys';
import { generateKeyPairSync } from 'node:crypto';
import { SigningKeyring } from './signing-keyring';

const newKey = (kid: string): PrivateSigningKey => ({
  kid,
  privateKey: generateKeyPairSync('ed25519').privateKey,
});

/** A store whose answers the test sets; it counts what the keyring asks of it. */
class FakeKeyStore {
  ensured = 0;
  reads = 0;
  answer: PrivateSigningKey[] | Error = [];

  ensureCurrentKey(): Promise<SigningKeyInfo> {
    this.ensured += 1;
    return Promise.resolve({
      kid: 'whk_current',
      createdAt: new Date(),
      signsUntil: null,
      publishedUntil: null,
    });
  }

  signingKeys(): Promise<PrivateSigningKey[]> {
    this.reads += 1;
    return this.answer instanceof Error
      ? Promise.reject(this.answer)
      : Promise.resolve(this.answer);
  }
}

describe('the engine signing keyring', () => {
  let keyring: SigningKeyring | undefined;
  afterEach(() => {
    keyring?.stop();
    jest.useRealTimers();
  });

  it('makes sure a key exists, then holds the keys that sign, newest first, without asking again per use', async () => {
    const store = new FakeKeyStore();
    const [newest, older] = [newKey('whk_b'), newKey('whk_a')];
    store.answer = [newest, older];
    keyring = new SigningKeyring(store);
    expect(keyring.currentSigningKeys()).toEqual([]);

    await keyring.start();

    expect(store.ensured).toBe(1);
    expect(keyring.currentSigningKeys()).toEqual([newest.privateKey, older.privateKey]);
    keyring.currentSigningKeys();
    expect(store.reads).toBe(1);
  });

  it('takes a rotation at the next refresh, and keeps the keys it holds when a read fails', async () => {
    jest.useFakeTimers();
    const store = new FakeKeyStore();
    const first = newKey('whk_a');
    store.answer = [first];
    keyring = new SigningKeyring(store, 1_000);
    await keyring.start();

    const rotated = newKey('whk_b');
    store.answer = [rotated, first];
    await jest.advanceTimersByTimeAsync(1_000);
    expect(keyring.currentSigningKeys()).toEqual([rotated.privateKey, first.privateKey]);

    store.answer = new Error('the database is away');
    await jest.advanceTimersByTimeAsync(1_000);
    expect(store.reads).toBe(3);
    expect(keyring.currentSigningKeys()).toEqual([rotated.privateKey, first.privateKey]);
  });

  it('stops refreshing once stopped', async () => {
    jest.useFakeTimers();
    const store = new FakeKeyStore();
    keyring = new SigningKeyring(store, 1_000);
    await keyring.start();
    keyring.stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(store.reads).toBe(1);
  });
});
