import { DataSource } from 'typeorm';
import { generateOpaqueSecret, hashOpaqueToken, isOpaqueSecret } from '../grants/opaque-tokens';

/** How long a sign-in lasts before the user is asked for the password again. */
export const SESSION_LIFETIME_SECONDS = 8 * 3600;

/**
 * Server-side sessions of the authorization server's pages: the browser holds a random id in a
 * cookie; the database holds only its hash, so a session can be ended for good.
 */
export class SignInSessions {
  constructor(private readonly dataSource: DataSource) {}

  /** Returns the session id to set in the cookie (shown nowhere else). */
  async start(userId: string): Promise<string> {
    const sessionId = generateOpaqueSecret();
    await this.dataSource.query(
      `INSERT INTO auth_sessions (id_hash, user_id, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [hashOpaqueToken(sessionId), userId, SESSION_LIFETIME_SECONDS],
    );
    return sessionId;
  }

  /** The signed-in user's id, or null for a missing, unknown or expired session. */
  async userOf(sessionId: string | undefined): Promise<string | null> {
    if (!sessionId || !isOpaqueSecret(sessionId)) {
      return null;
    }
    const [row] = await this.dataSource.query<{ user_id: string }[]>(
      `SELECT user_id FROM auth_sessions WHERE id_hash = $1 AND expires_at > now()`,
      [hashOpaqueToken(sessionId)],
    );
    return row?.user_id ?? null;
  }

  async end(sessionId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM auth_sessions WHERE id_hash = $1`, [
      hashOpaqueToken(sessionId),
    ]);
  }
}
