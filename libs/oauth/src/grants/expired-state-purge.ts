import { DataSource } from 'typeorm';

/**
 * Deletes authorization-server rows nobody can use any more. Codes and refresh tokens are kept a
 * day past expiry, so that a late replay is still recognised as reuse (and revokes its grant)
 * rather than passing for an unknown token; the events of the grants stay in the log for good.
 */
export async function purgeExpiredAuthState(dataSource: DataSource): Promise<number> {
  let deleted = 0;
  for (const statement of [
    `DELETE FROM oauth_authorization_codes WHERE expires_at < now() - interval '1 day'`,
    `DELETE FROM oauth_refresh_tokens WHERE expires_at < now() - interval '1 day'`,
    `DELETE FROM auth_sessions WHERE expires_at < now()`,
    `DELETE FROM login_throttle WHERE window_started_at < now() - interval '1 day'`,
  ]) {
    const [, count] = await dataSource.query<[unknown[], number]>(`${statement} RETURNING 1`);
    deleted += count;
  }
  return deleted;
}
