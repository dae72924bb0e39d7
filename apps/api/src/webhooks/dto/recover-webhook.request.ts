import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInstant } from '@svc/http';
import { IsOptional } from 'class-validator';
import { WebhookEndpointResponse } from './webhook-endpoint.response';

export class RecoverWebhookRequest {
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description:
      'Also re-drive the deliveries to this endpoint abandoned at or after this time (RFC 3339, with a time zone), oldest first. One call re-drives at most 10,000 of them (`WEBHOOK_RECOVER_REDRIVE_LIMIT`); when `more_to_redrive` says more are left, call again with the same time: the deliveries already re-driven are no longer abandoned, so the next call goes on with the rest.',
  })
  @IsOptional()
  @IsInstant()
  redrive_abandoned_since?: Date;
}

export class RecoveryResponse {
  @ApiProperty({ type: WebhookEndpointResponse }) endpoint!: WebhookEndpointResponse;
  @ApiProperty({
    description:
      'Abandoned deliveries started again by this call, each due at once (at most the cap of one call, 10,000 by default).',
  })
  redriven_deliveries!: number;
  @ApiProperty({
    description:
      'True when the call stopped at its cap with abandoned deliveries of the endpoint since `redrive_abandoned_since` left: call again with the same `redrive_abandoned_since` to re-drive the next ones. False when everything there was to re-drive was re-driven (or no re-drive was asked).',
  })
  more_to_redrive!: boolean;
}
