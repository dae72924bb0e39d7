import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Scope } from '@svc/contracts';
import type { ApiKeyEnvironment } from './api-key-format';

/** An API key as stored: only its SHA-256 digest, never the key itself. */
@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Index('api_keys_tenant_idx')
  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  environment!: ApiKeyEnvironment;

  @Index('api_keys_key_hash_key', { unique: true })
  @Column({ name: 'key_hash', type: 'text' })
  keyHash!: string;

  @Column({ name: 'key_hint', type: 'text' })
  keyHint!: string;

  @Column({ type: 'text', array: true })
  scopes!: Scope[];

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
