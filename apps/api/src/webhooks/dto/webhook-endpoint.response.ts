import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ENDPOINT_ORDERINGS,
  type EndpointOrdering,
  EVENT_SUBSCRIPTIONS,
  type EventSubscription,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
} from '@svc/contracts';
import { PageQuery } from '@svc/http';
import {
  type EndpointState,
  type EndpointStatus,
  type PayloadFilter,
  type ReceiverAuthView,
  receiverAuthView,
} from '@svc/webhook-endpoints';
import { IsIn, IsOptional } from 'class-validator';
import { EndpointHealth } from '../../endpoint-stats/endpoint-health';
import {
  AUTH_VIEW_PROPERTY,
  RETRY_SCHEDULE_PROPERTY,
  TIMEOUT_SECONDS_PROPERTY,
} from './delivery-policy.properties';
import { FILTER_PROPERTY } from './register-webhook.request';

/** The webhook endpoint resource of spec 2.1, without its secret. */
export class WebhookEndpointResponse {
  @ApiProperty({ pattern: '^wh_[0-9a-z]{26}$', example: 'wh_01jd8x3q9v7k2m4n6p8r0s2t4w' })
  id!: string;

  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ type: [String], enum: EVENT_SUBSCRIPTIONS })
  events!: EventSubscription[];

  @ApiProperty({
    enum: ['active', 'degraded', 'disabled'],
    description:
      'degraded: a delivery was abandoned; the endpoint still receives events. disabled: the receiver answered 410 Gone; nothing is sent until POST /v1/webhooks/{id}/recover.',
  })
  status!: EndpointStatus;

  @ApiProperty({ format: 'date-time', description: 'ISO 8601, UTC.' })
  created_at!: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'Present only while a secret rotation overlaps (POST /v1/webhooks/{id}/secret/rotate): until this time, ISO 8601 UTC, deliveries are signed with the replaced secret too.',
  })
  previous_secret_expires_at?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 10_000,
    description:
      'Present only while a rate limit is set: at most this many deliveries per second to the endpoint, across all delivery engines (ADR 0028).',
  })
  rate_limit_per_second?: number;

  @ApiProperty({
    type: [String],
    enum: SIGNATURE_SCHEMES,
    minItems: 1,
    uniqueItems: true,
    description:
      'How deliveries are signed (ADR 0044): `hmac-sha256` with the secret (X-SVC-Signature-256 and `v1,` entries), `ed25519` with the keys at /.well-known/webhook-signing-keys.json (`v1a,` entries). ["hmac-sha256"] for endpoints registered without a choice.',
    example: ['hmac-sha256'],
  })
  signature_schemes!: SignatureScheme[];

  @ApiProperty({
    enum: ENDPOINT_ORDERINGS,
    description:
      'In what order deliveries are sent (ADR 0045). `unordered`: each as soon as it is ready, several at once. `fifo`: deliveries are sent one at a time in sequence order; the next waits until the one before has succeeded or been abandoned. "unordered" for endpoints registered without a choice.',
    example: 'unordered',
  })
  ordering!: EndpointOrdering;

  @ApiProperty({
    ...FILTER_PROPERTY,
    description: `${FILTER_PROPERTY.description} null when the endpoint has none.`,
  })
  filter!: PayloadFilter | null;

  @ApiProperty(AUTH_VIEW_PROPERTY)
  auth!: ReceiverAuthView | null;

  @ApiProperty(RETRY_SCHEDULE_PROPERTY)
  retry_schedule!: string[] | null;

  @ApiProperty(TIMEOUT_SECONDS_PROPERTY)
  timeout_seconds!: number | null;

  static of(this: void, endpoint: EndpointState): WebhookEndpointResponse {
    return {
      id: endpoint.id,
      url: endpoint.url,
      events: endpoint.events,
      status: endpoint.status,
      created_at: endpoint.createdAt.toISOString(),
      signature_schemes: endpoint.signatureSchemes,
      ordering: endpoint.ordering,
      filter: endpoint.filter,
      auth: endpoint.auth && receiverAuthView(endpoint.auth),
      retry_schedule: endpoint.retrySchedule,
      timeout_seconds: endpoint.timeoutSeconds,
      // Left out, not null, when no overlap runs, so a registration answers exactly spec 4.1.
      ...(endpoint.previousSecretExpiresAt &&
        endpoint.previousSecretExpiresAt.getTime() > Date.now() && {
          previous_secret_expires_at: endpoint.previousSecretExpiresAt.toISOString(),
        }),
      // Left out too when there is no limit, so a registration without one answers exactly spec 4.1.
      ...(endpoint.rateLimitPerSecond !== null && {
        rate_limit_per_second: endpoint.rateLimitPerSecond,
      }),
    };
  }
}

/** `include=health` on the list: each endpoint's last 24 hours and latest attempt beside it. */
export class ListWebhooksQuery extends PageQuery {
  @ApiPropertyOptional({
    enum: ['health'],
    description:
      "`health`: each endpoint of the page with its attempts and success rate over the last 24 hours and its latest attempt, in the same answer (what the stats route's totals say, without a request per endpoint).",
  })
  @IsOptional()
  @IsIn(['health'], { message: 'must be health' })
  include?: 'health';
}

export class WebhookEndpointListItem extends WebhookEndpointResponse {
  @ApiPropertyOptional({ type: EndpointHealth, description: 'With `include=health` only.' })
  health?: EndpointHealth;
}

export class WebhookEndpointPage {
  @ApiProperty({ type: [WebhookEndpointListItem] })
  data!: WebhookEndpointListItem[];

  @ApiProperty()
  has_more!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as cursor to get the next page.',
  })
  next_cursor!: string | null;
}
