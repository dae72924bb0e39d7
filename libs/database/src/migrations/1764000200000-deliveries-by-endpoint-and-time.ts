import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEX = 'deliveries_endpoint_time_idx';
const SUFFIX = INDEX.slice('deliveries_'.length);

/**
 * An endpoint's deliveries in the order of their events' time (ADR 0029): replay walks an
 * endpoint's deliveries in a time range by (retention_key, id), and the test event looks for one
 * still in flight among the endpoint's latest; partitions outside the range are pruned, and within
 * one this index is the range.
 *
 * Built without stopping writers: the parent's index is made ON ONLY the parent (no data), each
 * partition's CONCURRENTLY, then attached; the parent's becomes valid once all are. Partitions
 * made meanwhile get it from the parent (addPartition copies the parent's indexes). So it runs
 * outside a transaction, and every step may be run again after a failure.
 */
export class DeliveriesByEndpointAndTime1764000200000 implements MigrationInterface {
  name = 'DeliveriesByEndpointAndTime1764000200000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX IF NOT EXISTS ${INDEX} ON ONLY deliveries (endpoint_id, retention_key, id)`,
    );
    const partitions = await runner.manager.query<{ name: string }[]>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'deliveries'::regclass ORDER BY c.relname`,
    );
    for (const { name } of partitions) {
      const own = `${name}_${SUFFIX}`;
      // A build that failed half-way leaves an invalid index behind: it is made again.
      const [invalid] = await runner.manager.query<unknown[]>(
        `SELECT 1 FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
          WHERE c.relname = $1 AND NOT x.indisvalid`,
        [own],
      );
      if (invalid) {
        await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${own}"`);
      }
      await runner.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${own}" ON "${name}" (endpoint_id, retention_key, id)`,
      );
      const [attached] = await runner.manager.query<unknown[]>(
        `SELECT 1 FROM pg_inherits WHERE inhrelid = $1::regclass AND inhparent = $2::regclass`,
        [own, INDEX],
      );
      if (!attached) {
        await runner.query(`ALTER INDEX ${INDEX} ATTACH PARTITION "${own}"`);
      }
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX IF EXISTS ${INDEX}`);
  }
}
