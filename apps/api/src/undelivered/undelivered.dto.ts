import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EVENT_TYPES } from '@svc/contracts';
import { ATTEMPT_ERROR_KINDS } from '@svc/deliveries';
import { PageQuery } from '@svc/http';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { DeliveryResponse } from '../delivery-log/delivery-log.dto';
import type { UndeliveredRow } from './undelivered.service';
import { UNDELIVERED_STATUSES, type UndeliveredStatus } from './undelivered-status';

export class UndeliveredQuery extends PageQuery {
  @ApiProperty({
    enum: UNDELIVERED_STATUSES,
    description:
      'abandoned: its last attempt failed and no retry is left. failing: still pending, the last attempt of its current run failed and a retry is scheduled.',
  })
  @IsIn(UNDELIVERED_STATUSES, { message: 'must be abandoned or failing' })
  status!: UndeliveredStatus;

  @ApiPropertyOptional({
    pattern: '^wh_',
    description: "Only deliveries to this endpoint (one of the caller's, else 404).",
  })
  @IsOptional()
  @IsString({ message: 'must be a single endpoint id' })
  endpoint_id?: string;

  @ApiPropertyOptional({ enum: EVENT_TYPES, description: 'Only deliveries of this event type.' })
  @IsOptional()
  @IsIn(EVENT_TYPES, { message: 'must be an event type of GET /v1/event-types' })
  event_type?: string;
}

/** What the last attempt of a delivery came to, from the attempt log. */
export class LastAttemptOutcome {
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'HTTP status of the answer, if one came.',
  })
  status_code!: number | null;
  @ApiProperty({ type: String, nullable: true, enum: [...ATTEMPT_ERROR_KINDS, null] })
  error_kind!: string | null;
  @ApiProperty({ type: String, nullable: true }) error_message!: string | null;
}

/** A delivery that did not get through, with why its last attempt failed. */
export class UndeliveredDelivery extends DeliveryResponse {
  @ApiProperty({
    type: LastAttemptOutcome,
    description:
      'The failure of the attempt made at last_attempt_at (every field null if the attempt log does not hold it).',
  })
  last_attempt!: LastAttemptOutcome;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "The endpoint's URL, so that a list across endpoints can name them.",
  })
  endpoint_url!: string | null;

  static ofRow(this: void, row: UndeliveredRow): UndeliveredDelivery {
    return {
      ...DeliveryResponse.of(row.delivery),
      last_attempt: {
        status_code: row.lastStatusCode,
        error_kind: row.lastErrorKind,
        error_message: row.lastErrorMessage,
      },
      endpoint_url: row.endpointUrl,
    };
  }
}

export class UndeliveredPage {
  @ApiProperty({ type: [UndeliveredDelivery] }) data!: UndeliveredDelivery[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}
