import { DataSource } from 'typeorm';
import {
  ACCOUNT_THROTTLE_POLICY,
  ADDRESS_THROTTLE_POLICY,
  decideThrottle,
  ThrottlePolicy,
} from './login-throttle-rule';

export interface SignInThrottlePolicies {
  account: ThrottlePolicy;
  address: ThrottlePolicy;
}

/** One try counted against a key before the password is checked; a success gives it back. */
export interface ThrottleReservation {
  key: string;
  /** The window it was counted in, exactly as stored (text, so no precision is lost). */
  window: string;
}

export type ThrottleLimit = 'account' | 'address';

export type ReserveResult =
  | { allowed: true; reservations: ThrottleReservation[] }
  | { allowed: false; limit: ThrottleLimit; retryAfterSeconds: number };

/**
 * Sign-in tries per account and per client address, kept in PostgreSQL so every replica of the
 * auth app counts the same tries (ADR 0017). A try is counted **before** the password is checked,
 * by one conditional upsert per key, so of any number of parallel tries at most `maxFailures`
 * per window get to the password check; the others are refused without it.
 */
export class LoginThrottle {
  constructor(
    private readonly dataSource: DataSource,
    private readonly policies: SignInThrottlePolicies = {
      account: ACCOUNT_THROTTLE_POLICY,
      address: ADDRESS_THROTTLE_POLICY,
    },
  ) {}

  /**
   * Counts a try against the address, then against the account. The address comes first so
   * that an address already refused adds nothing to the account: one attacker cannot lock out
   * every account. A try the account refuses is given back to the address.
   */
  async reserve(
    keys: { account: string; address: string },
    now = new Date(),
  ): Promise<ReserveResult> {
    const address = await this.reserveOne(keys.address, this.policies.address, now);
    if ('retryAfterSeconds' in address) {
      return { allowed: false, limit: 'address', retryAfterSeconds: address.retryAfterSeconds };
    }
    const account = await this.reserveOne(keys.account, this.policies.account, now);
    if ('retryAfterSeconds' in account) {
      await this.refund([address]);
      return { allowed: false, limit: 'account', retryAfterSeconds: account.retryAfterSeconds };
    }
    return { allowed: true, reservations: [address, account] };
  }

  /**
   * Gives tries back (after a successful sign-in), in the window they were counted in only:
   * a window that has been restarted since keeps its count.
   */
  async refund(reservations: readonly ThrottleReservation[]): Promise<void> {
    for (const { key, window } of reservations) {
      await this.dataSource.query(
        `UPDATE login_throttle SET failures = failures - 1
         WHERE key = $1 AND window_started_at = $2::timestamptz AND failures > 0`,
        [key, window],
      );
    }
  }

  /**
   * One statement: a new key, or a window that has ended, starts at one; a window with room
   * adds one; a full window is left alone and nothing is returned. PostgreSQL locks the row for
   * the upsert, so parallel tries are counted one after another.
   */
  private async reserveOne(
    key: string,
    policy: ThrottlePolicy,
    now: Date,
  ): Promise<ThrottleReservation | { retryAfterSeconds: number }> {
    const [row] = await this.dataSource.query<{ window: string }[]>(
      `INSERT INTO login_throttle AS t (key, failures, window_started_at) VALUES ($1, 1, $2)
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN t.window_started_at <= $2::timestamptz - make_interval(secs => $3)
                         THEN 1 ELSE t.failures + 1 END,
         window_started_at = CASE WHEN t.window_started_at <= $2::timestamptz - make_interval(secs => $3)
                                  THEN $2 ELSE t.window_started_at END
       WHERE t.failures < $4 OR t.window_started_at <= $2::timestamptz - make_interval(secs => $3)
       RETURNING t.window_started_at::text AS window`,
      [key, now, policy.windowSeconds, policy.maxFailures],
    );
    if (row) {
      return { key, window: row.window };
    }
    const [full] = await this.dataSource.query<{ failures: number; window_started_at: Date }[]>(
      `SELECT failures, window_started_at FROM login_throttle WHERE key = $1`,
      [key],
    );
    const decision = full
      ? decideThrottle(
          { failures: full.failures, windowStartedAt: full.window_started_at },
          now,
          policy,
        )
      : undefined;
    return { retryAfterSeconds: decision && !decision.allowed ? decision.retryAfterSeconds : 1 };
  }
}
