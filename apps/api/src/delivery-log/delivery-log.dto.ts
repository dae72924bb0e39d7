import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EVENT_TYPES } from '@svc/contracts';
import { ATTEMPT_ERROR_KINDS, DeliveryAttemptRecord, DeliveryRecord } from '@svc/deliveries';
import { IsInstant, PageQuery } from '@svc/http';
import { IsIn, IsOptional } from 'class-validator';

/** One schema for the field wherever a delivery or an attempt is shown (ADR 0045). */
const SEQUENCE_PROPERTY = {
  type: 'integer',
  minimum: 1,
  nullable: true,
  description:
    "The delivery's number among its endpoint's deliveries (1, 2, 3…), the `X-SVC-Sequence` it was sent with, the same on every attempt and replay. Null for test deliveries and for deliveries made before sequence numbers.",
} as const;

export class AttemptsQuery extends PageQuery {
  @ApiPropertyOptional({
    enum: ['succeeded', 'failed'],
    description: 'Only attempts with this outcome.',
  })
  @IsOptional()
  @IsIn(['succeeded', 'failed'], { message: 'must be succeeded or failed' })
  outcome?: 'succeeded' | 'failed';

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'Only attempts made at this time or later (RFC 3339, with a time zone).',
  })
  @IsOptional()
  @IsInstant()
  from?: Date;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'Only attempts made before this time, excluded (RFC 3339, after `from`).',
  })
  @IsOptional()
  @IsInstant()
  to?: Date;

  @ApiPropertyOptional({
    enum: EVENT_TYPES,
    description: 'Only attempts of deliveries of this event type.',
  })
  @IsOptional()
  @IsIn(EVENT_TYPES, { message: 'must be an event type of GET /v1/event-types' })
  event_type?: string;
}

/** One attempt of a delivery, as the delivery log shows it. */
export class AttemptResponse {
  @ApiProperty({ pattern: '^del_' }) delivery_id!: string;
  @ApiProperty({ pattern: '^evt_' }) event_id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The event type of the attempt's delivery (null if the delivery is not held).",
  })
  event_type!: string | null;
  @ApiProperty(SEQUENCE_PROPERTY) sequence!: number | null;
  @ApiProperty({ minimum: 1 }) attempt!: number;
  @ApiProperty({ enum: ['succeeded', 'failed'] }) outcome!: 'succeeded' | 'failed';
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'HTTP status of the answer, if one came.',
  })
  status_code!: number | null;
  @ApiProperty({ type: String, nullable: true, enum: [...ATTEMPT_ERROR_KINDS, null] })
  error_kind!: string | null;
  @ApiProperty({ type: String, nullable: true }) error_message!: string | null;
  @ApiProperty({ description: 'From connecting to the last byte of the answer.' })
  latency_ms!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The first 512 bytes of the answer body.',
  })
  response_excerpt!: string | null;
  @ApiProperty({ format: 'date-time' }) attempted_at!: string;

  static of(
    this: void,
    row: DeliveryAttemptRecord & { eventType?: string | null },
  ): AttemptResponse {
    return {
      delivery_id: row.deliveryId,
      event_id: row.eventId,
      event_type: row.eventType ?? null,
      sequence: row.sequence,
      attempt: row.attempt,
      outcome: row.succeeded ? 'succeeded' : 'failed',
      status_code: row.statusCode,
      error_kind: row.errorKind,
      error_message: row.errorMessage,
      latency_ms: row.latencyMs,
      response_excerpt: row.responseExcerpt,
      attempted_at: row.attemptedAt.toISOString(),
    };
  }
}

export class AttemptPage {
  @ApiProperty({
    type: [AttemptResponse],
    description:
      'With a filter, a page may hold fewer than `limit` attempts, even none: a request reads a bounded number of attempts. Keep following `next_cursor` until `has_more` is false.',
  })
  data!: AttemptResponse[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

/** One delivery of an event to one endpoint. */
export class DeliveryResponse {
  @ApiProperty({ pattern: '^del_' }) id!: string;
  @ApiProperty({ pattern: '^evt_' }) event_id!: string;
  @ApiProperty() event_type!: string;
  @ApiProperty({ pattern: '^wh_' }) endpoint_id!: string;
  @ApiProperty(SEQUENCE_PROPERTY) sequence!: number | null;
  @ApiProperty({ enum: ['pending', 'succeeded', 'abandoned', 'cancelled'] }) status!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) last_attempt_at!:
    string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) next_attempt_at!:
    string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) completed_at!: string | null;

  static of(this: void, row: DeliveryRecord): DeliveryResponse {
    const iso = (date: Date | null) => date?.toISOString() ?? null;
    return {
      id: row.id,
      event_id: row.eventId,
      event_type: row.eventType,
      endpoint_id: row.endpointId,
      sequence: row.sequence,
      status: row.status,
      attempts: row.attempts,
      last_attempt_at: iso(row.lastAttemptAt),
      next_attempt_at: iso(row.nextAttemptAt),
      created_at: row.createdAt.toISOString(),
      completed_at: iso(row.completedAt),
    };
  }
}

export class DeliveryList {
  @ApiProperty({ type: [DeliveryResponse] }) data!: DeliveryResponse[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}
