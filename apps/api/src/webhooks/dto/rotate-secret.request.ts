import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  MAX_SECRET_OVERLAP_MS,
  SECRET_MAX_LENGTH,
  SECRET_MIN_LENGTH,
} from '@svc/webhook-endpoints';
import { IsDefined, IsInt, IsString, Max, Min, ValidateIf } from 'class-validator';

/** How long the replaced secret keeps signing when the request does not say: Svix's 24 hours. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 3600;
export const MAX_SECRET_OVERLAP_SECONDS = MAX_SECRET_OVERLAP_MS / 1000;

/** Absent means "the default"; null is refused, naming the field, as in a PATCH. */
const IfPresent = () => ValidateIf((_: unknown, value: unknown) => value !== undefined);
const NOT_NULL = { message: 'must not be null; leave the field out for the default' };

/** `POST /v1/webhooks/{id}/secret/rotate`; every field optional (ADR 0026). */
export class RotateSecretRequest {
  @ApiPropertyOptional({
    minLength: SECRET_MIN_LENGTH,
    maxLength: SECRET_MAX_LENGTH,
    writeOnly: true,
    description:
      'The new signing secret, by the rules of registration (16 to 256 printable ASCII characters; `whsec_<base64>` is keyed with its decoded bytes in webhook-signature). Leave it out and the service generates one, `whsec_` + base64 of 32 random bytes, returned once in the answer.',
  })
  @IfPresent()
  @IsString({ message: 'must be a string' })
  @IsDefined(NOT_NULL)
  secret?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_SECRET_OVERLAP_SECONDS,
    default: DEFAULT_SECRET_OVERLAP_SECONDS,
    description:
      'How long, in seconds, the current secret keeps signing webhook-signature beside the new one, so receivers can switch without refusing a delivery. 0: it stops at once. At most 604800 (7 days). X-SVC-Signature-256 carries the new secret only, from the answer on.',
    example: DEFAULT_SECRET_OVERLAP_SECONDS,
  })
  @IfPresent()
  @Max(MAX_SECRET_OVERLAP_SECONDS, {
    message: `must be at most ${MAX_SECRET_OVERLAP_SECONDS} (7 days)`,
  })
  @Min(0, { message: 'must not be negative' })
  // Nearest the property: class-validator checks bottom-up and stops at the first failure.
  @IsInt({ message: 'must be a whole number of seconds' })
  @IsDefined(NOT_NULL)
  overlap_seconds?: number;
}
