import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ApiKeyEnvironment } from '../api-keys/api-key-format';

/**
 * A console session opened by a portal link, as stored: only the SHA-256 digest of its token.
 * It authenticates until `expires_at`, or until it ends itself (`ended_at`, sign-out).
 */
@Entity({ name: 'portal_sessions' })
export class PortalSession {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** The link that opened it; null once the purge of old links has deleted that link. */
  @Index('portal_sessions_link_idx')
  @Column({ name: 'link_id', type: 'text', nullable: true })
  linkId!: string | null;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  environment!: ApiKeyEnvironment;

  @Index('portal_sessions_token_hash_key', { unique: true })
  @Column({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'read_only', type: 'boolean' })
  readOnly!: boolean;

  @Column({ name: 'return_url', type: 'text', nullable: true })
  returnUrl!: string | null;

  /** The credential that minted the link (`key_…`, `tok_…`). */
  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Index('portal_sessions_expiry_idx')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;
}
