import { appendToStream, readAll, readStream, StreamVersionConflictError } from '@svc/event-store';
import { migrateDatabase, MIGRATIONS, openDataSource } from '@svc/database';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../support';

describe('the append-only event log', () => {
  let dataSource: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    dataSource = await openDataSource({ url: database.url, poolSize: 4 });
  });
  afterAll(async () => {
    await dataSource.destroy();
    await drop();
  });

  it('numbers a stream from 1 and orders the whole log by position', async () => {
    const appended = await dataSource.transaction((manager) =>
      appendToStream(manager, 'stream-a', 0, [
        { type: 'thing.happened', data: { n: 1 } },
        { type: 'thing.happened', data: { n: 2 } },
      ]),
    );
    expect(appended.map((event) => event.version)).toEqual([1, 2]);
    expect(BigInt(appended[1].position)).toBeGreaterThan(BigInt(appended[0].position));
    const stream = await readStream(dataSource.manager, 'stream-a');
    expect(stream.map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("refuses an append made from a stale version, and keeps the first writer's event", async () => {
    await dataSource.transaction((manager) =>
      appendToStream(manager, 'stream-b', 0, [{ type: 'x', data: { by: 'first' } }]),
    );
    await expect(
      dataSource.transaction((manager) =>
        appendToStream(manager, 'stream-b', 0, [{ type: 'x', data: { by: 'second' } }]),
      ),
    ).rejects.toBeInstanceOf(StreamVersionConflictError);
    expect((await readStream(dataSource.manager, 'stream-b')).map((event) => event.data)).toEqual([
      { by: 'first' },
    ]);
  });

  it('lets only one of two concurrent writers at the same version win', async () => {
    const results = await Promise.allSettled(
      ['one', 'two'].map((by) =>
        dataSource.transaction((manager) =>
          appendToStream(manager, 'stream-c', 0, [{ type: 'x', data: { by } }]),
        ),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'rejected')[0]).toMatchObject({
      reason: expect.any(StreamVersionConflictError),
    });
  });

  it('cannot be changed or emptied, even by direct SQL', async () => {
    await expect(dataSource.query(`UPDATE events SET type = 'forged'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(dataSource.query('DELETE FROM events')).rejects.toThrow(/append-only/);
    await expect(dataSource.query('TRUNCATE events')).rejects.toThrow(/append-only/);
  });

  it('reads the whole log in pages, filtered by type', async () => {
    await dataSource.transaction((manager) =>
      appendToStream(
        manager,
        'stream-d',
        0,
        Array.from({ length: 7 }, (_, n) => ({ type: n % 2 ? 'odd' : 'even', data: { n } })),
      ),
    );
    const odd: unknown[] = [];
    for await (const event of readAll(dataSource.manager, { types: ['odd'], pageSize: 2 })) {
      odd.push(event.data);
    }
    expect(odd).toEqual([{ n: 1 }, { n: 3 }, { n: 5 }]);
  });

  it('is migrated once when two migrators race on an empty database, then idempotently', async () => {
    const database = await createTestDatabase({ empty: true });
    try {
      const results = await Promise.all([
        migrateDatabase(database.url),
        migrateDatabase(database.url),
      ]);
      expect(results.flat()).toEqual(MIGRATIONS.map((migration) => migration.name));
      expect(await migrateDatabase(database.url)).toEqual([]);
    } finally {
      await database.drop();
    }
  });
});
