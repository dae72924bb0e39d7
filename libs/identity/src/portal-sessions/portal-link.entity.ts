import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ApiKeyEnvironment } from '../api-keys/api-key-format';

/**
 * A one-time link to the console, as stored: only the SHA-256 digest of its token. It opens a
 * session at most once (`used_at`), and only before `expires_at`.
 */
@Entity({ name: 'portal_links' })
export class PortalLink {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  environment!: ApiKeyEnvironment;

  @Index('portal_links_token_hash_key', { unique: true })
  @Column({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'read_only', type: 'boolean' })
  readOnly!: boolean;

  @Column({ name: 'return_url', type: 'text', nullable: true })
  returnUrl!: string | null;

  /** The API key or access token that minted the link (`key_…`, `tok_…`). */
  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Index('portal_links_expiry_idx')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;
}
