import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A public OAuth client (RFC 6749 2.1): no secret; PKCE protects its code exchanges. */
@Entity({ name: 'oauth_clients' })
export class OAuthClient {
  /** The client_id, `cli_` + identifier. */
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ type: 'text' }) name!: string;
  /** Compared as exact strings. */
  @Column({ name: 'redirect_uris', type: 'text', array: true }) redirectUris!: string[];
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt!: Date;
}
