import { ApiPropertyOptional } from '@nestjs/swagger';
import { EVENT_SUBSCRIPTIONS, type EventSubscription } from '@svc/contracts';
import {
  ENDPOINT_URL_MAX_LENGTH,
  SECRET_MAX_LENGTH,
  SECRET_MIN_LENGTH,
} from '@svc/webhook-endpoints';
import { ArrayMaxSize, IsArray, IsOptional, IsString } from 'class-validator';

/** A partial update: the fields present replace the endpoint's; the same rules as registration. */
export class UpdateWebhookRequest {
  @ApiPropertyOptional({ format: 'uri', maxLength: ENDPOINT_URL_MAX_LENGTH })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  url?: string;

  @ApiPropertyOptional({
    type: [String],
    enum: EVENT_SUBSCRIPTIONS,
    minItems: 1,
    uniqueItems: true,
  })
  @IsOptional()
  @ArrayMaxSize(EVENT_SUBSCRIPTIONS.length, {
    message: 'has more entries than there are event types',
  })
  @IsString({ each: true, message: 'must contain only strings' })
  // Nearest the property: class-validator checks bottom-up and stops at the first failure.
  @IsArray({ message: 'must be an array of event type names' })
  events?: EventSubscription[];

  @ApiPropertyOptional({
    minLength: SECRET_MIN_LENGTH,
    maxLength: SECRET_MAX_LENGTH,
    writeOnly: true,
    description: 'A new signing secret; deliveries made after the answer use it.',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  secret?: string;
}
