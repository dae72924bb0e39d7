import { Column, Entity, PrimaryColumn, ValueTransformer } from 'typeorm';
import type { DeliveryState, DeliveryStatus } from '../delivery-state';

/** A bigint column read as a number: a sequence number stays far below 2^53. */
const bigintAsNumber: ValueTransformer = {
  to: (value: number | null) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** The `deliveries` projection: one row per (event, endpoint), folded from the delivery stream. */
@Entity({ name: 'deliveries' })
export class DeliveryRecord implements DeliveryState {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'event_id', type: 'text' }) eventId!: string;
  @Column({ name: 'endpoint_id', type: 'text' }) endpointId!: string;
  @Column({ name: 'tenant_id', type: 'text' }) tenantId!: string;
  @Column({ name: 'event_type', type: 'text' }) eventType!: string;
  @Column({ type: 'bigint', nullable: true, transformer: bigintAsNumber }) sequence!: number | null;
  @Column({ type: 'boolean' }) ordered!: boolean;
  @Column({ type: 'text' }) status!: DeliveryStatus;
  @Column({ type: 'integer' }) attempts!: number;
  @Column({ name: 'run_attempts', type: 'integer' }) runAttempts!: number;
  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt!: Date | null;
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
  @Column({ type: 'integer' }) version!: number;
}

/** The `delivery_attempts` projection: one row per `delivery.attempted` event, keyed by its log position. */
@Entity({ name: 'delivery_attempts' })
export class DeliveryAttemptRecord {
  @PrimaryColumn({ type: 'bigint' }) position!: string;
  @Column({ name: 'delivery_id', type: 'text' }) deliveryId!: string;
  @Column({ name: 'tenant_id', type: 'text' }) tenantId!: string;
  @Column({ name: 'endpoint_id', type: 'text' }) endpointId!: string;
  @Column({ name: 'event_id', type: 'text' }) eventId!: string;
  @Column({ type: 'bigint', nullable: true, transformer: bigintAsNumber }) sequence!: number | null;
  @Column({ type: 'integer' }) attempt!: number;
  @Column({ type: 'boolean' }) succeeded!: boolean;
  @Column({ name: 'status_code', type: 'integer', nullable: true }) statusCode!: number | null;
  @Column({ name: 'error_kind', type: 'text', nullable: true }) errorKind!: string | null;
  @Column({ name: 'error_message', type: 'text', nullable: true }) errorMessage!: string | null;
  @Column({ name: 'latency_ms', type: 'integer' }) latencyMs!: number;
  @Column({ name: 'response_excerpt', type: 'text', nullable: true }) responseExcerpt!:
    string | null;
  @Column({ name: 'attempted_at', type: 'timestamptz' }) attemptedAt!: Date;
}

/** Attempts waiting for their time: derived from pending deliveries, claimed by the engines. */
@Entity({ name: 'delivery_schedule' })
export class ScheduledDelivery {
  @PrimaryColumn({ name: 'delivery_id', type: 'text' }) deliveryId!: string;
  @Column({ name: 'tenant_id', type: 'text' }) tenantId!: string;
  @Column({ name: 'endpoint_id', type: 'text' }) endpointId!: string;
  @Column({ name: 'due_at', type: 'timestamptz' }) dueAt!: Date;
  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil!: Date | null;
  /** A FIFO endpoint's delivery: claimed only as the head of its endpoint's queue. */
  @Column({ type: 'boolean' }) ordered!: boolean;
  @Column({ type: 'bigint', nullable: true, transformer: bigintAsNumber }) sequence!: number | null;
}

/** What the engine received, byte for byte; retries send the same body. */
@Entity({ name: 'inbound_events' })
export class InboundEvent {
  /** An event is its tenant's: the key is (tenant_id, event_id), never the id alone. */
  @PrimaryColumn({ name: 'tenant_id', type: 'text' }) tenantId!: string;
  @PrimaryColumn({ name: 'event_id', type: 'text' }) eventId!: string;
  @Column({ type: 'text' }) type!: string;
  @Column({ type: 'text' }) body!: string;
  /** W3C trace headers of the publish (traceparent, tracestate), so retries join its trace. */
  @Column({ name: 'trace_context', type: 'jsonb', nullable: true }) traceContext!: Record<
    string,
    string
  > | null;
  @Column({ name: 'received_at', type: 'timestamptz', default: () => 'now()' }) receivedAt!: Date;
}
