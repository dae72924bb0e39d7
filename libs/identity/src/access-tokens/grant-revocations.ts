import { DataSource } from 'typeorm';

/** What the registration API asks of a token's grant: has it been revoked? */
export class GrantRevocations {
  constructor(private readonly dataSource: DataSource) {}

  async isRevoked(grantId: string): Promise<boolean> {
    const [grant] = await this.dataSource.query<{ revoked: boolean }[]>(
      `SELECT revoked_at IS NOT NULL AS revoked FROM oauth_grants WHERE id = $1`,
      [grantId],
    );
    return !grant || grant.revoked;
  }
}
