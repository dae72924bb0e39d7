import type { Scope } from '@svc/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A person who signs in to the authorization server; belongs to one tenant. */
@Entity({ name: 'users' })
export class User {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Index('users_tenant_idx')
  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;
  /** Lowercased; unique across tenants, since the login form asks for nothing else. */
  @Index('users_email_key', { unique: true })
  @Column({ type: 'text' })
  email!: string;
  @Column({ name: 'password_hash', type: 'text' }) passwordHash!: string;
  /** The most a grant for this user may carry. */
  @Column({ name: 'allowed_scopes', type: 'text', array: true }) allowedScopes!: Scope[];
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt!: Date;
}
