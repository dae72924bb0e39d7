import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInstant } from '@svc/http';
import { IsOptional } from 'class-validator';
import { WebhookEndpointResponse } from './webhook-endpoint.response';

export class RecoverWebhookRequest {
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description:
      'Also re-drive the deliveries to this endpoint abandoned at or after this time (RFC 3339, with a time zone).',
  })
  @IsOptional()
  @IsInstant()
  redrive_abandoned_since?: Date;
}

export class RecoveryResponse {
  @ApiProperty({ type: WebhookEndpointResponse }) endpoint!: WebhookEndpointResponse;
  @ApiProperty({ description: 'Abandoned deliveries started again, each due at once.' })
  redriven_deliveries!: number;
}
