import { newId, Scope } from '@svc/contracts';
import { DataSource, IsNull } from 'typeorm';
import { Principal } from '../principal';
import {
  apiKeyHint,
  ApiKeyEnvironment,
  generateApiKey,
  hashApiKey,
  hashesEqual,
  parseApiKey,
} from './api-key-format';
import { ApiKey } from './api-key.entity';

/** last_used_at is refreshed at most this often, so that reads do not each cost a write. */
export const LAST_USED_RESOLUTION_SECONDS = 60;

export interface CreatedApiKey {
  record: ApiKey;
  /** The only time the key exists in clear: shown once, never stored. */
  key: string;
}

export class ApiKeysService {
  constructor(private readonly dataSource: DataSource) {}

  async create(input: {
    tenantId: string;
    scopes: Scope[];
    environment: ApiKeyEnvironment;
  }): Promise<CreatedApiKey> {
    const key = generateApiKey(input.environment);
    const record = this.dataSource.getRepository(ApiKey).create({
      id: newId('key'),
      tenantId: input.tenantId,
      environment: input.environment,
      keyHash: hashApiKey(key),
      keyHint: apiKeyHint(key),
      scopes: [...new Set(input.scopes)],
      revokedAt: null,
      lastUsedAt: null,
    });
    return { record: await this.dataSource.getRepository(ApiKey).save(record), key };
  }

  /** Revokes a key; true when it was active. Revocation takes effect on the next request. */
  async revoke(id: string): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(ApiKey)
      .update({ id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  find(id: string): Promise<ApiKey | null> {
    return this.dataSource.getRepository(ApiKey).findOneBy({ id });
  }

  listForTenant(tenantId: string): Promise<ApiKey[]> {
    return this.dataSource
      .getRepository(ApiKey)
      .find({ where: { tenantId }, order: { id: 'ASC' } });
  }

  /** The principal for a presented key, or null for a malformed, unknown or revoked one. */
  async authenticate(presented: string): Promise<Principal | null> {
    if (!parseApiKey(presented)) {
      return null;
    }
    const digest = hashApiKey(presented);
    const record = await this.dataSource.getRepository(ApiKey).findOneBy({ keyHash: digest });
    if (!record || !hashesEqual(record.keyHash, digest) || record.revokedAt !== null) {
      return null;
    }
    this.touch(record.id);
    return {
      kind: 'api_key',
      credentialId: record.id,
      tenantId: record.tenantId,
      scopes: record.scopes,
      sandbox: record.environment === 'test',
    };
  }

  private touch(id: string): void {
    void this.dataSource
      .query(
        `UPDATE api_keys SET last_used_at = now()
          WHERE id = $1
            AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $2))`,
        [id, LAST_USED_RESOLUTION_SECONDS],
      )
      .catch(() => undefined);
  }
}
