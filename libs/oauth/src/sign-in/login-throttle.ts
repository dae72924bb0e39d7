import { DataSource } from 'typeorm';
import {
  ACCOUNT_THROTTLE_POLICY,
  decideThrottle,
  FailureRecord,
  recordFailure,
  ThrottleDecision,
  ThrottlePolicy,
} from './login-throttle-rule';

/**
 * Failed sign-ins per account, kept in PostgreSQL so every replica of the auth app counts the
 * same failures. Keyed by the email typed, whether or not such a user exists, so the throttle
 * says nothing about which accounts exist.
 */
export class LoginThrottle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policy: ThrottlePolicy = ACCOUNT_THROTTLE_POLICY,
  ) {}

  async check(email: string, now = new Date()): Promise<ThrottleDecision> {
    return decideThrottle(await this.read(email), now, this.policy);
  }

  /** Counts one failure; the row is locked so concurrent failures are all counted. */
  async fail(email: string, now = new Date()): Promise<void> {
    const key = throttleKey(email);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO login_throttle (key, failures, window_started_at) VALUES ($1, 0, $2)
         ON CONFLICT (key) DO NOTHING`,
        [key, now],
      );
      const [row] = await manager.query<{ failures: number; window_started_at: Date }[]>(
        `SELECT failures, window_started_at FROM login_throttle WHERE key = $1 FOR UPDATE`,
        [key],
      );
      const current = row.failures === 0 ? undefined : toRecord(row);
      const next = recordFailure(current, now, this.policy);
      await manager.query(
        `UPDATE login_throttle SET failures = $2, window_started_at = $3 WHERE key = $1`,
        [key, next.failures, next.windowStartedAt],
      );
    });
  }

  async clear(email: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM login_throttle WHERE key = $1`, [throttleKey(email)]);
  }

  private async read(email: string): Promise<FailureRecord | undefined> {
    const [row] = await this.dataSource.query<{ failures: number; window_started_at: Date }[]>(
      `SELECT failures, window_started_at FROM login_throttle WHERE key = $1`,
      [throttleKey(email)],
    );
    return row && row.failures > 0 ? toRecord(row) : undefined;
  }
}

const throttleKey = (email: string) => `account:${email.trim().toLowerCase()}`;

const toRecord = (row: { failures: number; window_started_at: Date }): FailureRecord => ({
  failures: row.failures,
  windowStartedAt: row.window_started_at,
});
