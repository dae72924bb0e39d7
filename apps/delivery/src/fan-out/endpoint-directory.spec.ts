import { SecretCipher } from '@svc/secrets';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EndpointDirectory } from './endpoint-directory';

const DIRECTORY_TTL_MS = 30_000;

const cipher = new SecretCipher([randomBytes(32).toString('base64')]);
const row = (id: string, events: string[]) => ({
  id,
  tenantId: 'ten_1',
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

  it("reads only the tenant's live endpoints: platform events never reach test ones (ADR 0018)", async () => {
    const db = stubDataSource();
    const directory = new EndpointDirectory(db.dataSource, cipher, { ttlMs: DIRECTORY_TTL_MS });
    const found = directory.subscribers('ten_1', 'alert.created');
    db.answer([]);
    await found;
    expect(db.findBy).toHaveBeenCalledWith({ tenantId: 'ten_1', environment: 'live' });
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
