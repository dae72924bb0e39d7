import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  DEFAULT_ENDPOINT_ORDERING,
  DEFAULT_SIGNATURE_SCHEMES,
  ENDPOINT_ORDERINGS,
  type EndpointOrdering,
  EVENT_SUBSCRIPTIONS,
  type EventSubscription,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
} from '@svc/contracts';
import {
  ENDPOINT_URL_MAX_LENGTH,
  FILTER_LIMITS,
  type PayloadFilter,
  RATE_LIMIT_MAX_PER_SECOND,
  RATE_LIMIT_MIN_PER_SECOND,
  SECRET_MAX_LENGTH,
  SECRET_MIN_LENGTH,
} from '@svc/webhook-endpoints';
import { Transform } from 'class-transformer';
import {
  AUTH_REQUEST_PROPERTY,
  RETRY_SCHEDULE_PROPERTY,
  TIMEOUT_SECONDS_PROPERTY,
} from './delivery-policy.properties';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsNumber,
  IsString,
  ValidateIf,
} from 'class-validator';

const URL_DESCRIPTION =
  'Absolute https URL that receives deliveries; no user information or fragment, and not a private, loopback or link-local address.';
const SECRET_DESCRIPTION =
  'HMAC-SHA256 key for X-SVC-Signature-256, 16 to 256 printable ASCII characters. Never returned.';

/** The rate limit's documentation and shape check, shared by registration and update. */
export const RATE_LIMIT_PROPERTY = {
  type: 'integer',
  minimum: RATE_LIMIT_MIN_PER_SECOND,
  maximum: RATE_LIMIT_MAX_PER_SECOND,
  nullable: true,
  description:
    'At most this many deliveries per second to this endpoint, across all delivery engines; deliveries beyond it wait for a later second (they are not failed and use no attempt).',
  example: 50,
} as const;
export const RATE_LIMIT_SHAPE = { message: 'must be a number of deliveries per second, or null' };

/** The signature schemes' documentation, shared by registration, update and the answers. */
export const SIGNATURE_SCHEMES_PROPERTY = {
  type: [String] as [StringConstructor],
  enum: [...SIGNATURE_SCHEMES],
  minItems: 1,
  maxItems: SIGNATURE_SCHEMES.length,
  uniqueItems: true,
  description:
    "How deliveries are signed (ADR 0044). `hmac-sha256`: X-SVC-Signature-256 and the `v1,` entries of webhook-signature, with the endpoint's secret. `ed25519`: the `v1a,` entries of webhook-signature, verifiable with the public keys at /.well-known/webhook-signing-keys.json. Both while a receiver migrates.",
  example: ['hmac-sha256', 'ed25519'],
};
/** More entries than this cannot be a subset without repeats; the rules say which are wrong. */
export const SIGNATURE_SCHEMES_MAX_ENTRIES = 16;

/** The ordering's documentation, shared by registration, update and the answers. */
export const ORDERING_PROPERTY = {
  type: String,
  enum: [...ENDPOINT_ORDERINGS],
  description:
    'In what order deliveries are sent (ADR 0045). `unordered`: each as soon as it is ready, several at once. `fifo`: deliveries are sent one at a time in sequence order; the next waits until the one before has succeeded or been abandoned.',
  example: 'fifo',
};
export const ORDERING_SHAPE = { message: 'must be a string: unordered or fifo' };

/** The payload filter's documentation, shared by registration, update and the answers. */
export const FILTER_PROPERTY = {
  type: 'object',
  additionalProperties: true,
  nullable: true,
  description: `Which of the subscribed events the endpoint receives (ADR 0046): a JSON object matched against the whole envelope (id, type, created_at, tenant_id, data). A key is a field name (literal, not a dotted path); its condition is a plain value (equality), a nested object (descends into the field) or operators: $eq, $neq, $in, $nin, $gt, $gte, $lt, $lte, $exists, $startsWith, $and, $or, $not; $and, $or and $not also stand at the top. At most ${FILTER_LIMITS.maxSerializedBytes} bytes of JSON, ${FILTER_LIMITS.maxDepth} levels, ${FILTER_LIMITS.maxOperators} operators, strings of ${FILTER_LIMITS.maxStringLength} characters, ${FILTER_LIMITS.maxListItems} items in $in or $nin, field names of ${FILTER_LIMITS.maxFieldNameLength} characters. An event the filter refuses gets no delivery and no sequence number. Example: {"data": {"severity": {"$in": ["high", "critical"]}}}.`,
  example: { data: { severity: { $in: ['high', 'critical'] } } },
} as const;

/**
 * The filter (and the other fields whose rules are the library's) exactly as parsed, not class-transformer's copy of it (which rebuilds nested objects
 * and skips keys such as `__proto__`): the rules, the log and the engines get the client's JSON.
 * Its shape and rules are checkFilter's, so that every problem names its path in the filter.
 */
export const AsParsedFilter = () =>
  Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => obj[key]);

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

  @ApiPropertyOptional({
    ...RATE_LIMIT_PROPERTY,
    description: `${RATE_LIMIT_PROPERTY.description} Absent or null: no limit.`,
  })
  // Absent and null both mean no limit; only the shape is checked here (checkRateLimit does the rest).
  @ValidateIf((_: unknown, value: unknown) => value !== undefined && value !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false }, RATE_LIMIT_SHAPE)
  rate_limit_per_second?: number | null;

  @ApiPropertyOptional({
    ...SIGNATURE_SCHEMES_PROPERTY,
    default: [...DEFAULT_SIGNATURE_SCHEMES],
    description: `${SIGNATURE_SCHEMES_PROPERTY.description} Absent: ["hmac-sha256"].`,
  })
  // Absent means the default; null is refused, naming the field. Only the shape is checked here:
  // emptiness, unknown names and repeats are checkSignatureSchemes's.
  @ValidateIf((_: unknown, value: unknown) => value !== undefined)
  @ArrayMaxSize(SIGNATURE_SCHEMES_MAX_ENTRIES, {
    message: 'has more entries than there are schemes',
  })
  @IsString({ each: true, message: 'must contain only strings' })
  @IsArray({ message: 'must be an array of signature scheme names' })
  @IsDefined({ message: 'must not be null; leave the field out for the default' })
  signature_schemes?: SignatureScheme[];

  @ApiPropertyOptional({
    ...ORDERING_PROPERTY,
    default: DEFAULT_ENDPOINT_ORDERING,
    description: `${ORDERING_PROPERTY.description} Absent: "unordered".`,
  })
  // Absent means the default; null is refused, naming the field. An unknown value is
  // checkOrdering's, so that its problem lists the known ones.
  @ValidateIf((_: unknown, value: unknown) => value !== undefined)
  @IsString(ORDERING_SHAPE)
  @IsDefined({ message: 'must not be null; leave the field out for the default' })
  ordering?: EndpointOrdering;

  @ApiPropertyOptional({
    ...FILTER_PROPERTY,
    description: `${FILTER_PROPERTY.description} Absent or null: every event of the subscribed types.`,
  })
  @AsParsedFilter()
  @Allow()
  filter?: PayloadFilter | null;

  @ApiPropertyOptional({
    ...AUTH_REQUEST_PROPERTY,
    description: `${AUTH_REQUEST_PROPERTY.description} Absent or null: none.`,
  })
  // As parsed, like the filter: the shape and the rules are checkReceiverAuth's, each problem
  // naming its path (auth.headers.Host).
  @AsParsedFilter()
  @Allow()
  auth?: unknown;

  @ApiPropertyOptional({
    ...RETRY_SCHEDULE_PROPERTY,
    description: `${RETRY_SCHEDULE_PROPERTY.description} Absent: null.`,
  })
  @AsParsedFilter()
  @Allow()
  retry_schedule?: unknown;

  @ApiPropertyOptional({
    ...TIMEOUT_SECONDS_PROPERTY,
    description: `${TIMEOUT_SECONDS_PROPERTY.description} Absent: null.`,
  })
  @AsParsedFilter()
  @Allow()
  timeout_seconds?: unknown;
}
