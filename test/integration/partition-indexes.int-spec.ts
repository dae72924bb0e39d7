import { DELIVERY_DATA_TABLES } from '@svc/database';
import { Client } from 'pg';
import { suiteDatabase } from './delivery-tables';

/**
 * The partitions of delivery data carry their parent's indexes once each, all attached (ADR
 * 0023, addPartition): a partition's primary key is the index made for it, not a second one that
 * ATTACH would build beside it (twice the space, and a unique violation instead of ON CONFLICT's
 * skip when two writers race for one key; found by `npm run bench:storage`).
 */
describe('partitions of delivery data: the parent indexes, once each', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;

  beforeEach(async () => {
    db = await suiteDatabase();
  });
  afterEach(() => db.close());

  it('gives every partition exactly its parent’s indexes, each attached to the parent’s', async () => {
    const rows = await db.dataSource.query<
      { partition: string; indexes: number; attached: number; parent: number }[]
    >(
      `SELECT c.relname AS partition, count(*)::int AS indexes,
              count(ii.inhrelid)::int AS attached,
              (SELECT count(*)::int FROM pg_index WHERE indrelid = p.oid) AS parent
         FROM pg_inherits t
         JOIN pg_class c ON c.oid = t.inhrelid
         JOIN pg_class p ON p.oid = t.inhparent
         JOIN pg_index x ON x.indrelid = c.oid
         LEFT JOIN pg_inherits ii ON ii.inhrelid = x.indexrelid
        WHERE p.relname = ANY($1)
        GROUP BY c.relname, p.oid`,
      [DELIVERY_DATA_TABLES],
    );
    // The kept and legacy partitions of the migration, and the days ahead of the template.
    expect(rows.length).toBeGreaterThanOrEqual(4 * 3);
    for (const row of rows) {
      expect(row).toEqual({ ...row, indexes: row.parent, attached: row.parent });
    }
    const [{ n }] = await db.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM pg_constraint
        WHERE contype = 'p' AND conname ~ '^inbound_events_(p\\d{8}t\\d{6}|kept|legacy)_pkey$'`,
    );
    expect(n).toBe(rows.filter((row) => row.partition.startsWith('inbound_events_')).length);
  });

  it('lets writers racing for one stored body all commit: ON CONFLICT skips it, no unique violation', async () => {
    // Racing means passing ON CONFLICT's check before either has inserted, which a fixed order
    // of statements cannot force: many rounds of four writers at once make it happen.
    const writers = Array.from({ length: 4 }, () => new Client({ connectionString: db.url }));
    await Promise.all(writers.map((client) => client.connect()));
    try {
      const key = new Date();
      let stored = 0;
      for (let round = 0; round < 300; round += 1) {
        const results = await Promise.all(
          writers.map((client) =>
            client.query(
              `INSERT INTO inbound_events (event_id, tenant_id, type, body, retention_key)
               VALUES ($1, 'ten_race', 'alert.created', '{}', $2)
               ON CONFLICT (tenant_id, event_id, retention_key) DO NOTHING`,
              [`evt_race_${round}`, key],
            ),
          ),
        );
        stored += results.reduce((total, result) => total + (result.rowCount ?? 0), 0);
      }
      expect(stored).toBe(300);
    } finally {
      await Promise.all(writers.map((client) => client.end()));
    }
  });
});
