import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { EndpointOrdering, EventSubscription, SignatureScheme } from '@svc/contracts';
import type { EndpointEnvironment, EndpointStatus, PayloadFilter } from '../endpoint-events';
import type { EndpointState } from '../endpoint-state';
import type { SealedReceiverAuth } from '../receiver-auth/receiver-auth';

/** The endpoint projection: one row per live endpoint, derived from its event stream only. */
@Entity({ name: 'webhook_endpoints' })
@Index('webhook_endpoints_tenant_id_idx', ['tenantId', 'id'])
export class WebhookEndpointRecord implements EndpointState {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: EventSubscription[];

  @Column({ name: 'secret_ciphertext', type: 'text' })
  secretCiphertext!: string;

  @Column({ name: 'previous_secret_ciphertext', type: 'text', nullable: true })
  previousSecretCiphertext!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Column({ type: 'text' })
  status!: EndpointStatus;

  /** `live` or `test` (ADR 0018); 'live' for endpoints registered before it. */
  @Column({ type: 'text', default: 'live' })
  environment!: EndpointEnvironment;

  @Column({ name: 'rate_limit_per_second', type: 'integer', nullable: true })
  rateLimitPerSecond!: number | null;

  /** ADR 0044; `{hmac-sha256}` for endpoints registered before it, as their events fold. */
  @Column({
    name: 'signature_schemes',
    type: 'text',
    array: true,
    default: () => "'{hmac-sha256}'",
  })
  signatureSchemes!: SignatureScheme[];

  /** ADR 0045; 'unordered' for endpoints registered before it, as their events fold. */
  @Column({ type: 'text', default: 'unordered' })
  ordering!: EndpointOrdering;

  /** ADR 0046; null when the endpoint takes every event of its types. */
  @Column({ type: 'jsonb', nullable: true })
  filter!: PayloadFilter | null;

  /** ADR 0048; the secret parts sealed, as in the log. Null: no authentication beyond signatures. */
  @Column({ type: 'jsonb', nullable: true })
  auth!: SealedReceiverAuth | null;

  /** ADR 0048; null: the deployment's schedule. */
  @Column({ name: 'retry_schedule', type: 'text', array: true, nullable: true })
  retrySchedule!: string[] | null;

  /** ADR 0048; null: the deployment's timeout. */
  @Column({ name: 'timeout_seconds', type: 'smallint', nullable: true })
  timeoutSeconds!: number | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  /** Version of the last event of the endpoint's stream folded into this row. */
  @Column({ type: 'integer' })
  version!: number;
}
