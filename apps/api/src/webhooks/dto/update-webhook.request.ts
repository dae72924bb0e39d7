import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  type EndpointOrdering,
  EVENT_SUBSCRIPTIONS,
  type EventSubscription,
  type SignatureScheme,
} from '@svc/contracts';
import {
  ENDPOINT_URL_MAX_LENGTH,
  type PayloadFilter,
  SECRET_MAX_LENGTH,
  SECRET_MIN_LENGTH,
} from '@svc/webhook-endpoints';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsNumber,
  IsString,
  ValidateIf,
} from 'class-validator';
import {
  AsParsedFilter,
  FILTER_PROPERTY,
  ORDERING_PROPERTY,
  ORDERING_SHAPE,
  RATE_LIMIT_PROPERTY,
  RATE_LIMIT_SHAPE,
  SIGNATURE_SCHEMES_MAX_ENTRIES,
  SIGNATURE_SCHEMES_PROPERTY,
} from './register-webhook.request';
import {
  AUTH_REQUEST_PROPERTY,
  RETRY_SCHEDULE_PROPERTY,
  TIMEOUT_SECONDS_PROPERTY,
} from './delivery-policy.properties';

/**
 * Absent means "keep"; null is not a value of these fields and is refused, naming the field
 * (IsOptional would let it through to the rules as if it were a value). The exceptions are
 * `rate_limit_per_second`, `filter`, `auth`, `retry_schedule` and `timeout_seconds`, where null
 * is a value: no limit, no filter, none, the deployment's.
 */
const IfPresent = () => ValidateIf((_: unknown, value: unknown) => value !== undefined);
const NOT_NULL = { message: 'must not be null; leave the field out to keep its value' };

/** A partial update: the fields present replace the endpoint's; the same rules as registration. */
export class UpdateWebhookRequest {
  @ApiPropertyOptional({ format: 'uri', maxLength: ENDPOINT_URL_MAX_LENGTH })
  @IfPresent()
  @IsString({ message: 'must be a string' })
  @IsDefined(NOT_NULL)
  url?: string;

  @ApiPropertyOptional({
    type: [String],
    enum: EVENT_SUBSCRIPTIONS,
    minItems: 1,
    uniqueItems: true,
  })
  @IfPresent()
  @ArrayMaxSize(EVENT_SUBSCRIPTIONS.length, {
    message: 'has more entries than there are event types',
  })
  @IsString({ each: true, message: 'must contain only strings' })
  // Nearest the property: class-validator checks bottom-up and stops at the first failure.
  @IsArray({ message: 'must be an array of event type names' })
  @IsDefined(NOT_NULL)
  events?: EventSubscription[];

  @ApiPropertyOptional({
    minLength: SECRET_MIN_LENGTH,
    maxLength: SECRET_MAX_LENGTH,
    writeOnly: true,
    description: 'A new signing secret; deliveries made after the answer use it.',
  })
  @IfPresent()
  @IsString({ message: 'must be a string' })
  @IsDefined(NOT_NULL)
  secret?: string;

  @ApiPropertyOptional({
    ...RATE_LIMIT_PROPERTY,
    description: `${RATE_LIMIT_PROPERTY.description} null removes the limit; absent keeps the current one.`,
  })
  // The exception to NOT_NULL above: null is a value here (it removes the limit), so only a
  // present, non-null value has its shape checked.
  @ValidateIf((_: unknown, value: unknown) => value !== undefined && value !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false }, RATE_LIMIT_SHAPE)
  rate_limit_per_second?: number | null;

  @ApiPropertyOptional({
    ...SIGNATURE_SCHEMES_PROPERTY,
    description: `${SIGNATURE_SCHEMES_PROPERTY.description} Absent keeps the current ones.`,
  })
  @IfPresent()
  @ArrayMaxSize(SIGNATURE_SCHEMES_MAX_ENTRIES, {
    message: 'has more entries than there are schemes',
  })
  @IsString({ each: true, message: 'must contain only strings' })
  @IsArray({ message: 'must be an array of signature scheme names' })
  @IsDefined(NOT_NULL)
  signature_schemes?: SignatureScheme[];

  @ApiPropertyOptional({
    ...ORDERING_PROPERTY,
    description: `${ORDERING_PROPERTY.description} Absent keeps the current one.`,
  })
  @IfPresent()
  @IsString(ORDERING_SHAPE)
  @IsDefined(NOT_NULL)
  ordering?: EndpointOrdering;

  @ApiPropertyOptional({
    ...FILTER_PROPERTY,
    description: `${FILTER_PROPERTY.description} null removes the filter; absent keeps the current one.`,
  })
  @AsParsedFilter()
  @Allow()
  filter?: PayloadFilter | null;

  @ApiPropertyOptional({
    ...AUTH_REQUEST_PROPERTY,
    description: `${AUTH_REQUEST_PROPERTY.description} A new value replaces the whole of it, secrets included; null removes it; absent keeps it.`,
  })
  @AsParsedFilter()
  @Allow()
  auth?: unknown;

  @ApiPropertyOptional({
    ...RETRY_SCHEDULE_PROPERTY,
    description: `${RETRY_SCHEDULE_PROPERTY.description} null goes back to the deployment's; absent keeps it. Retries already scheduled take the new one from their next attempt.`,
  })
  @AsParsedFilter()
  @Allow()
  retry_schedule?: unknown;

  @ApiPropertyOptional({
    ...TIMEOUT_SECONDS_PROPERTY,
    description: `${TIMEOUT_SECONDS_PROPERTY.description} null goes back to the deployment's; absent keeps it.`,
  })
  @AsParsedFilter()
  @Allow()
  timeout_seconds?: unknown;
}
