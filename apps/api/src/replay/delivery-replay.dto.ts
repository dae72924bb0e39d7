import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInstant } from '@svc/http';
import { IsOptional, IsString } from 'class-validator';

export class ReplayEndpointRequest {
  @ApiProperty({
    type: String,
    format: 'date-time',
    description:
      "Replay the endpoint's deliveries whose event is of this time or later (RFC 3339, with a time zone): the event's `created_at`, or when the engine took it if that was far off.",
  })
  @IsInstant()
  from!: Date;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description:
      'Up to this time, excluded. After `from`, and at most the retention of delivery data (`DELIVERY_DATA_RETENTION`, 30 days) after it.',
  })
  @IsInstant()
  to!: Date;

  @ApiPropertyOptional({
    description:
      'The `next_cursor` of the previous answer, with the same `from` and `to`: the replay goes on after the last delivery that call looked at.',
  })
  @IsOptional()
  @IsString({ message: 'must be a cursor this API issued' })
  cursor?: string;
}

export class ReplayEndpointResponse {
  @ApiProperty({
    description:
      'Deliveries sent again by this call, each now pending with a new run of attempts due at once (at most the cap of one call, 10,000 by default).',
  })
  replayed_deliveries!: number;

  @ApiProperty({
    description:
      'True when the call stopped at its cap with deliveries of the range left: call again with the same `from` and `to` and this `next_cursor`.',
  })
  more_to_replay!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Where the next call goes on; null when nothing is left.',
  })
  next_cursor!: string | null;
}
