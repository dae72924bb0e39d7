import { newId, Scope } from '@svc/contracts';
import { appendToStream } from '@svc/event-store';
import { userInfo } from 'node:os';
import { DataSource } from 'typeorm';
import { Principal } from '../principal';
import {
  apiKeyHint,
  ApiKeyEnvironment,
  generateApiKey,
  hashApiKey,
  hashesEqual,
  parseApiKey,
} from './api-key-format';
import { API_KEY_EVENT_TYPES, ApiKeyEvent, KeyChangeActor } from './api-key-events';
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

  /** A new key, and `api_key.created` in the same transaction (the tenant's audit trail). */
  async create(input: {
    tenantId: string;
    scopes: Scope[];
    environment: ApiKeyEnvironment;
    actor?: KeyChangeActor;
  }): Promise<CreatedApiKey> {
    const key = generateApiKey(input.environment);
    return this.dataSource.transaction(async (manager) => {
      const repository = manager.getRepository(ApiKey);
      const record = await repository.save(
        repository.create({
          id: newId('key'),
          tenantId: input.tenantId,
          environment: input.environment,
          keyHash: hashApiKey(key),
          keyHint: apiKeyHint(key),
          scopes: [...new Set(input.scopes)],
          revokedAt: null,
          lastUsedAt: null,
        }),
      );
      await appendToStream<ApiKeyEvent>(manager, record.id, 0, [
        {
          type: API_KEY_EVENT_TYPES.created,
          data: {
            key_id: record.id,
            tenant_id: record.tenantId,
            environment: record.environment,
            scopes: record.scopes,
            key_hint: record.keyHint,
            created_at: new Date().toISOString(),
          },
          metadata: keyChangeMetadata(record, input.actor),
        },
      ]);
      return { record, key };
    });
  }

  /**
   * Revokes a key; true when it was active, and then `api_key.revoked` is appended in the same
   * transaction. Revocation takes effect on the next request.
   */
  async revoke(id: string, actor?: KeyChangeActor): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [revoked]: [ApiKey[], number] = await manager.query(
        `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL
         RETURNING id, tenant_id AS "tenantId", environment, revoked_at AS "revokedAt"`,
        [id],
      );
      const record = revoked[0];
      if (!record) {
        return false;
      }
      const [{ version }]: { version: number }[] = await manager.query(
        'SELECT coalesce(max(version), 0)::int AS version FROM events WHERE stream_id = $1',
        [id],
      );
      await appendToStream<ApiKeyEvent>(manager, id, version, [
        {
          type: API_KEY_EVENT_TYPES.revoked,
          data: {
            key_id: id,
            tenant_id: record.tenantId,
            revoked_at: new Date(record.revokedAt!).toISOString(),
          },
          metadata: keyChangeMetadata(record, actor),
        },
      ]);
      return true;
    });
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
      credentialHint: record.keyHint,
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

/** The metadata of a key's events: its tenant and environment, and who ran the command. */
function keyChangeMetadata(
  record: Pick<ApiKey, 'tenantId' | 'environment'>,
  actor: KeyChangeActor = operatorRunningThis(),
): Record<string, unknown> {
  return { tenant_id: record.tenantId, environment: record.environment, actor };
}

/** The CLI runs as an operator on a machine: their user name is the best name there is. */
function operatorRunningThis(): KeyChangeActor {
  try {
    return { kind: 'operator', id: userInfo().username };
  } catch {
    return { kind: 'operator', id: null };
  }
}
