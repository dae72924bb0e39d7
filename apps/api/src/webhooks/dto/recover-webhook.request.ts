import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';
import { WebhookEndpointResponse } from './webhook-endpoint.response';

export class RecoverWebhookRequest {
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Also re-drive the deliveries to this endpoint abandoned at or after this time.',
  })
  @IsOptional()
  @IsISO8601(
    { strict: true },
    { message: 'must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z' },
  )
  redrive_abandoned_since?: string;
}

export class RecoveryResponse {
  @ApiProperty({ type: WebhookEndpointResponse }) endpoint!: WebhookEndpointResponse;
  @ApiProperty({ description: 'Abandoned deliveries started again, each due at once.' })
  redriven_deliveries!: number;
}
