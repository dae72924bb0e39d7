import { Logger } from '@nestjs/common';
import { SecretCipher } from '@svc/secrets';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { receiverAuthCipherContext, sealReceiverAuth } from '@svc/webhook-endpoints';
import {
  attemptPolicyOf,
  DirectoryEndpoint,
  EndpointDirectory,
  filterAdmits,
  signingSecretsOf,
} from './endpoint-directory';

const DIRECTORY_TTL_MS = 30_000;

const cipher = new SecretCipher([randomBytes(32).toString('base64')]);
const row = (id: string, events: string[], environment = 'live') => ({
  id,
  tenantId: 'ten_1',
  environment,
  url: `https://${id}.example/in`,
  events,
  secretCiphertext: cipher.encrypt(`secret-of-${id}`, id),
});

/** A data source whose endpoint query answers what the test says, when the test says. */
function stubDataSource() {
  const answers: ((rows: unknown[]) => void)[] = [];
  const findBy = jest.fn(() => new Promise<unknown[]>((resolve) => answers.push(resolve)));
  const dataSource = { getRepository: () => ({ findBy }) } as unknown as DataSource;
  return { dataSource, findBy, answer: (rows: unknown[]) => answers.shift()!(rows) };
}

describe('EndpointDirectory', () => {
  it("opens each endpoint's auth with its own context, and carries its attempt policy and timeout (ADR 0048)", async () => {
    const db = stubDataSource();
    const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
    const basic = { type: 'basic' as const, username: 'svc', password: 'pw-of-wh_auth' };
    const sealedFor = (id: string) =>
      sealReceiverAuth(basic, (plain) => cipher.encrypt(plain, receiverAuthCipherContext(id)));
    const loaded = directory.subscribers('ten_1', 'alert.created');
    db.answer([
      {
        ...row('wh_auth', ['alert.*']),
        auth: sealedFor('wh_auth'),
        retrySchedule: ['10s', '2m'],
        timeoutSeconds: 3,
        version: 7,
      },
      // Sealed for another endpoint, copied here: it must not open.
      { ...row('wh_copied', ['alert.*']), auth: sealedFor('wh_auth') },
      { ...row('wh_plain', ['alert.*']), auth: null, retrySchedule: null, timeoutSeconds: null },
    ]);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const [withAuth, copied, plain] = await loaded;
    error.mockRestore();
    expect(withAuth).toMatchObject({
      auth: basic,
      attemptPolicy: { retryScheduleMs: [10_000, 120_000], maxAttempts: 3 },
      timeoutMs: 3000,
      version: 7,
    });
    expect(copied.auth).toBe('unreadable');
    expect(plain).toMatchObject({ auth: null, attemptPolicy: null, timeoutMs: null });
  });

  it('makes a retry schedule an attempt policy with one attempt more than its delays', () => {
    expect(attemptPolicyOf(['1s', '30m', '24h'])).toEqual({
      retryScheduleMs: [1000, 1_800_000, 86_400_000],
      maxAttempts: 4,
    });
  });

  it('finds subscribers by exact type and family wildcard, with decrypted secrets', async () => {
    const db = stubDataSource();
    const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
    const found = directory.subscribers('ten_1', 'alert.created');
    db.answer([
      row('wh_a', ['alert.created']),
      row('wh_b', ['alert.*']),
      row('wh_c', ['incident.*']),
    ]);
    expect((await found).map((e) => [e.id, e.secret])).toEqual([
      ['wh_a', 'secret-of-wh_a'],
      ['wh_b', 'secret-of-wh_b'],
    ]);
  });

  it('carries the schemes each endpoint signs with, as the projection holds them (ADR 0044)', async () => {
    const db = stubDataSource();
    const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
    const found = directory.subscribers('ten_1', 'alert.created');
    db.answer([
      { ...row('wh_hmac', ['alert.*']), signatureSchemes: ['hmac-sha256'] },
      { ...row('wh_both', ['alert.*']), signatureSchemes: ['hmac-sha256', 'ed25519'] },
      { ...row('wh_ed', ['alert.*']), signatureSchemes: ['ed25519'] },
    ]);
    expect((await found).map((e) => [e.id, e.signatureSchemes])).toEqual([
      ['wh_hmac', ['hmac-sha256']],
      ['wh_both', ['hmac-sha256', 'ed25519']],
      ['wh_ed', ['ed25519']],
    ]);
  });

  it('carries the order each endpoint takes its deliveries in, as the projection holds it (ADR 0045)', async () => {
    const db = stubDataSource();
    const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
    const found = directory.subscribers('ten_1', 'alert.created');
    db.answer([
      { ...row('wh_any', ['alert.*']), ordering: 'unordered' },
      { ...row('wh_fifo', ['alert.*']), ordering: 'fifo' },
    ]);
    expect((await found).map((e) => [e.id, e.ordering])).toEqual([
      ['wh_any', 'unordered'],
      ['wh_fifo', 'fifo'],
    ]);
  });

  describe('payload filters (ADR 0046)', () => {
    const severe = { data: { severity: { $in: ['high', 'critical'] } } };
    const alert = (severity: string) => ({ type: 'alert.created', data: { severity } });

    it("compiles each endpoint's filter when it loads it, and lets the caller apply it", async () => {
      const db = stubDataSource();
      const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
      const found = directory.subscribers('ten_1', 'alert.created');
      db.answer([
        { ...row('wh_all', ['alert.*']), filter: null },
        { ...row('wh_severe', ['alert.*']), filter: severe, version: 3 },
      ]);
      const [all, filtered] = await found;
      expect(all.filter).toBeNull();
      expect(filterAdmits(all, alert('low'))).toBe(true);
      expect(filterAdmits(filtered, alert('critical'))).toBe(true);
      expect(filterAdmits(filtered, alert('low'))).toBe(false);
      expect(filtered.filter?.explain(alert('low'))).toEqual({
        matched: false,
        decidedBy: 'filter.data.severity.$in',
      });
    });

    it('compiles once per load, not per event: the cached endpoint keeps its compiled filter', async () => {
      const db = stubDataSource();
      const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
      const first = directory.subscribers('ten_1', 'alert.created');
      db.answer([{ ...row('wh_severe', ['alert.*']), filter: severe }]);
      const [loaded] = await first;
      const [again] = await directory.subscribers('ten_1', 'alert.created');
      expect(again.filter).toBe(loaded.filter);
      expect(db.findBy).toHaveBeenCalledTimes(1);
    });

    it('makes a stored filter that does not compile match nothing, and logs it once per version', async () => {
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      try {
        const db = stubDataSource();
        const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
        const broken = (version: number) => ({
          ...row('wh_broken', ['alert.*']),
          filter: { data: { severity: { $regex: 'h' } } },
          version,
        });
        for (const version of [4, 4, 5]) {
          const found = directory.subscribers('ten_1', 'alert.created');
          db.answer([broken(version)]);
          const [endpoint] = await found;
          expect(filterAdmits(endpoint, alert('high'))).toBe(false);
          directory.invalidate('ten_1');
        }
        expect(logged.mock.calls.map(([message]) => String(message))).toEqual([
          expect.stringMatching(/wh_broken \(version 4\).*\$regex.*matches no event/),
          expect.stringMatching(/wh_broken \(version 5\)/),
        ]);
      } finally {
        logged.mockRestore();
      }
    });
  });

  it("gives platform events only the tenant's live endpoints, and an operational event its endpoint's environment (ADR 0018, 0030)", async () => {
    const db = stubDataSource();
    const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
    const live = directory.subscribers('ten_1', 'webhook.endpoint.degraded');
    db.answer([row('wh_live', ['webhook.*']), row('wh_test', ['webhook.*'], 'test')]);
    expect((await live).map((e) => e.id)).toEqual(['wh_live']);
    const test = await directory.subscribers('ten_1', 'webhook.endpoint.degraded', 'test');
    expect(test.map((e) => e.id)).toEqual(['wh_test']);
    expect(await directory.endpoint('ten_1', 'wh_test')).toMatchObject({ environment: 'test' });
    expect(db.findBy).toHaveBeenCalledTimes(1);
    expect(db.findBy).toHaveBeenCalledWith({ tenantId: 'ten_1' });
  });

  it('serves from cache until the TTL, and reloads after', async () => {
    const db = stubDataSource();
    let now = 0;
    const directory = new EndpointDirectory(db.dataSource, cipher, {
      ttlMs: DIRECTORY_TTL_MS,
      now: () => now,
    });
    const first = directory.subscribers('ten_1', 'alert.created');
    db.answer([row('wh_a', ['alert.*'])]);
    await first;
    now = DIRECTORY_TTL_MS - 1;
    await directory.subscribers('ten_1', 'alert.created');
    expect(db.findBy).toHaveBeenCalledTimes(1);
    now = DIRECTORY_TTL_MS + 1;
    const again = directory.subscribers('ten_1', 'alert.created');
    db.answer([]);
    expect(await again).toEqual([]);
    expect(db.findBy).toHaveBeenCalledTimes(2);
  });

  it('never keeps a load that a change notice overtook', async () => {
    const db = stubDataSource();
    const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
    const stale = directory.subscribers('ten_1', 'alert.created');
    directory.invalidate('ten_1');
    db.answer([row('wh_deleted', ['alert.*'])]);
    await stale;
    const fresh = directory.subscribers('ten_1', 'alert.created');
    expect(db.findBy).toHaveBeenCalledTimes(2);
    db.answer([]);
    expect(await fresh).toEqual([]);
  });

  it('gives a null secret, not a failure, when the key is missing', async () => {
    const db = stubDataSource();
    const directory = new EndpointDirectory(
      db.dataSource,
      new SecretCipher([randomBytes(32).toString('base64')]),
      { ttlMs: DIRECTORY_TTL_MS },
    );
    const found = directory.endpoint('ten_1', 'wh_a');
    db.answer([row('wh_a', ['alert.*'])]);
    expect(await found).toMatchObject({ id: 'wh_a', secret: null });
  });
});

describe('signingSecretsOf (ADR 0026)', () => {
  const sendTime = new Date('2026-01-01T12:00:00.000Z');
  const endpoint = (overrides: Partial<DirectoryEndpoint> = {}): DirectoryEndpoint => ({
    id: 'wh_a',
    tenantId: 'ten_1',
    url: 'https://wh_a.example/in',
    events: ['alert.*'],
    secret: 'new-secret',
    previousSecret: null,
    status: 'active',
    rateLimitPerSecond: null,
    signatureSchemes: ['hmac-sha256'],
    ordering: 'unordered',
    filter: null,
    environment: 'live',
    version: 1,
    auth: null,
    attemptPolicy: null,
    timeoutMs: null,
    ...overrides,
  });

  it('given no rotation, when sending, then the one secret signs', () => {
    expect(signingSecretsOf(endpoint(), sendTime)).toEqual(['new-secret']);
  });

  it('given a rotation overlapping the send time, when sending, then both sign, the newest first', () => {
    const overlapping = endpoint({
      previousSecret: { secret: 'old-secret', expiresAt: new Date('2026-01-01T12:00:00.001Z') },
    });
    expect(signingSecretsOf(overlapping, sendTime)).toEqual(['new-secret', 'old-secret']);
  });

  it('given an overlap that ended by the send time, when sending, then the old secret no longer signs', () => {
    for (const expiresAt of [sendTime, new Date('2026-01-01T11:59:59.999Z')]) {
      const expired = endpoint({ previousSecret: { secret: 'old-secret', expiresAt } });
      expect(signingSecretsOf(expired, sendTime)).toEqual(['new-secret']);
    }
  });

  it('given a secret that cannot be decrypted, when sending, then nothing signs', () => {
    const undecryptable = endpoint({
      secret: null,
      previousSecret: { secret: 'old-secret', expiresAt: new Date('2026-01-02T00:00:00.000Z') },
    });
    expect(signingSecretsOf(undecryptable, sendTime)).toEqual([]);
  });

  it('given rows in and past an overlap, when loaded, then only the unexpired previous secret is decrypted and kept', async () => {
    const db = stubDataSource();
    const now = Date.parse('2026-01-01T12:00:00.000Z');
    const directory = new EndpointDirectory(db.dataSource, cipher, {
      ttlMs: DIRECTORY_TTL_MS,
      now: () => now,
    });
    const withPrevious = (id: string, expiresAt: string) => ({
      ...row(id, ['alert.*']),
      previousSecretCiphertext: cipher.encrypt(`old-secret-of-${id}`, id),
      previousSecretExpiresAt: new Date(expiresAt),
    });
    const found = directory.subscribers('ten_1', 'alert.created');
    db.answer([
      withPrevious('wh_overlapping', '2026-01-01T13:00:00.000Z'),
      withPrevious('wh_expired', '2026-01-01T11:00:00.000Z'),
      row('wh_plain', ['alert.*']),
    ]);
    expect((await found).map((e) => [e.id, e.secret, e.previousSecret])).toEqual([
      [
        'wh_overlapping',
        'secret-of-wh_overlapping',
        {
          secret: 'old-secret-of-wh_overlapping',
          expiresAt: new Date('2026-01-01T13:00:00.000Z'),
        },
      ],
      ['wh_expired', 'secret-of-wh_expired', null],
      ['wh_plain', 'secret-of-wh_plain', null],
    ]);
  });
});
