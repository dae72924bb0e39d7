import { ApiProperty } from '@nestjs/swagger';
import { EVENT_SUBSCRIPTIONS, type EventSubscription } from '@svc/contracts';
import type { EndpointState, EndpointStatus } from '@svc/webhook-endpoints';

/** The webhook endpoint resource of spec 2.1, without its secret. */
export class WebhookEndpointResponse {
  @ApiProperty({ pattern: '^wh_[0-9a-z]{26}$', example: 'wh_01jd8x3q9v7k2m4n6p8r0s2t4w' })
  id!: string;

  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ type: [String], enum: EVENT_SUBSCRIPTIONS })
  events!: EventSubscription[];

  @ApiProperty({ enum: ['active', 'degraded'] })
  status!: EndpointStatus;

  @ApiProperty({ format: 'date-time', description: 'ISO 8601, UTC.' })
  created_at!: string;

  static of(this: void, endpoint: EndpointState): WebhookEndpointResponse {
    return {
      id: endpoint.id,
      url: endpoint.url,
      events: endpoint.events,
      status: endpoint.status,
      created_at: endpoint.createdAt.toISOString(),
    };
  }
}

export class WebhookEndpointPage {
  @ApiProperty({ type: [WebhookEndpointResponse] })
  data!: WebhookEndpointResponse[];

  @ApiProperty()
  has_more!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as cursor to get the next page.',
  })
  next_cursor!: string | null;
}
