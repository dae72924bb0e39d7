import { Client } from 'pg';
import { encodeTime } from 'ulid';

/** What the delivery log holds: counted in PostgreSQL, the only place that proves durability. */
export interface LogCounts {
  deliveries: number;
  succeeded: number;
  attempts: number;
  failedAttempts: number;
  deferred: number;
  /** recorded_at of the newest attempt event (its transaction's start), epoch ms. */
  lastAttemptRecordedAt: number;
}

export class DeliveryLogProbe {
  private constructor(private readonly client: Client) {}

  static async open(url: string): Promise<DeliveryLogProbe> {
    const client = new Client({ connectionString: url });
    await client.connect();
    return new DeliveryLogProbe(client);
  }

  async succeeded(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>(
      `SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'`,
    );
    return Number(rows[0].n);
  }

  /**
   * Deliveries of a tenant's events created at or after `sinceMs` (event ids are ULIDs, so by
   * their id) that succeeded: an index range scan, whatever else the tables hold (the backlog
   * scenario's 100,000 older deliveries).
   */
  async succeededSince(tenantId: string, sinceMs: number): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>(
      `SELECT count(*) AS n FROM deliveries
        WHERE tenant_id = $1 AND event_id >= $2 AND status = 'succeeded'`,
      [tenantId, `evt_${encodeTime(sinceMs, 10).toLowerCase()}`],
    );
    return Number(rows[0].n);
  }

  /**
   * Transactions committed in this database so far, every client's (pg_stat_database; the
   * statistics reach it within about a second).
   */
  async transactionsCommitted(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0].n);
  }

  /** Deliveries waiting in the schedule (due or not). */
  async scheduled(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>(
      'SELECT count(*) AS n FROM delivery_schedule',
    );
    return Number(rows[0].n);
  }

  async counts(): Promise<LogCounts> {
    const { rows } = await this.client.query<Record<string, string | Date | null>>(`
      SELECT (SELECT count(*) FROM deliveries) AS deliveries,
             (SELECT count(*) FROM deliveries WHERE status = 'succeeded') AS succeeded,
             (SELECT count(*) FROM delivery_attempts) AS attempts,
             (SELECT count(*) FROM delivery_attempts WHERE NOT succeeded) AS failed_attempts,
             (SELECT count(*) FROM events WHERE type = 'delivery.deferred') AS deferred,
             (SELECT max(recorded_at) FROM events WHERE type = 'delivery.attempted') AS last_recorded`);
    const row = rows[0];
    const last = row.last_recorded as Date | null;
    return {
      deliveries: Number(row.deliveries),
      succeeded: Number(row.succeeded),
      attempts: Number(row.attempts),
      failedAttempts: Number(row.failed_attempts),
      deferred: Number(row.deferred),
      lastAttemptRecordedAt: last ? last.getTime() : NaN,
    };
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
