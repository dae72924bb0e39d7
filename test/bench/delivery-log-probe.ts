import { Client } from 'pg';

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
