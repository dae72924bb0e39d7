import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEX = 'delivery_attempts_endpoint_time_idx';
const SUFFIX = INDEX.slice('delivery_attempts_'.length);
const COLUMNS = '(endpoint_id, attempted_at) INCLUDE (succeeded, latency_ms)';

/**
 * An endpoint's attempts in the order of their time (issue 31, ADR 0042): the stats route reads
 * the attempts of one endpoint over the last 24 hours or 7 days as one range of this index in
 * each partition, never the endpoint's (or tenant's) whole history; outcome and latency are
 * included so that the range is read from the index alone.
 *
 * Built without stopping writers, as deliveries_endpoint_time_idx (1764000200000): the parent's
 * index ON ONLY the parent, each partition's CONCURRENTLY, then attached. Outside a transaction,
 * and every step may be run again after a failure.
 */
export class AttemptsByEndpointAndTime1764000750000 implements MigrationInterface {
  name = 'AttemptsByEndpointAndTime1764000750000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX IF NOT EXISTS ${INDEX} ON ONLY delivery_attempts ${COLUMNS}`);
    const partitions = await runner.manager.query<{ name: string }[]>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'delivery_attempts'::regclass ORDER BY c.relname`,
    );
    for (const { name } of partitions) {
      const own = `${name}_${SUFFIX}`;
      const [invalid] = await runner.manager.query<unknown[]>(
        `SELECT 1 FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
          WHERE c.relname = $1 AND NOT x.indisvalid`,
        [own],
      );
      if (invalid) {
        await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${own}"`);
      }
      await runner.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${own}" ON "${name}" ${COLUMNS}`,
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
