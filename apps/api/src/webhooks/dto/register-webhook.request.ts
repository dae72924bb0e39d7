import { ApiProperty } from '@nestjs/swagger';
import { EVENT_SUBSCRIPTIONS, type EventSubscription } from '@svc/contracts';
import {
  ENDPOINT_URL_MAX_LENGTH,
  SECRET_MAX_LENGTH,
  SECRET_MIN_LENGTH,
} from '@svc/webhook-endpoints';
import { ArrayMaxSize, IsArray, IsDefined, IsString } from 'class-validator';

const URL_DESCRIPTION =
  'Absolute https URL that receives deliveries; no user information or fragment, and not a private, loopback or link-local address.';
const SECRET_DESCRIPTION =
  'HMAC-SHA256 key for X-SVC-Signature-256, 16 to 256 printable ASCII characters. Never returned.';

/** Only the shape is checked here; the rules on the values live in @svc/webhook-endpoints. */
export class RegisterWebhookRequest {
  @ApiProperty({
    format: 'uri',
    maxLength: ENDPOINT_URL_MAX_LENGTH,
    description: URL_DESCRIPTION,
    example: 'https://hooks.example.com/svc',
  })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  url!: string;

  @ApiProperty({
    type: [String],
    enum: EVENT_SUBSCRIPTIONS,
    minItems: 1,
    uniqueItems: true,
    description: 'Event types, or whole families as family.* (alert.*, incident.*, compliance.*).',
    example: ['alert.created', 'incident.*'],
  })
  @IsDefined({ message: 'is required' })
  @ArrayMaxSize(EVENT_SUBSCRIPTIONS.length, {
    message: 'has more entries than there are event types',
  })
  @IsString({ each: true, message: 'must contain only strings' })
  // Nearest the property: class-validator checks bottom-up and stops at the first failure.
  @IsArray({ message: 'must be an array of event type names' })
  events!: EventSubscription[];

  @ApiProperty({
    minLength: SECRET_MIN_LENGTH,
    maxLength: SECRET_MAX_LENGTH,
    description: SECRET_DESCRIPTION,
    writeOnly: true,
  })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  secret!: string;
}
