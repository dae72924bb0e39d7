import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WebhookEndpointResponse } from './webhook-endpoint.response';

/** What a rotation did; the only answer that ever holds a secret, and only a generated one. */
export class RotateSecretResponse {
  @ApiProperty({ type: WebhookEndpointResponse })
  endpoint!: WebhookEndpointResponse;

  @ApiPropertyOptional({
    readOnly: true,
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9p0BcXQ5r0o=',
    description:
      'The new secret, present only when the service generated it (no `secret` in the request): shown this once and never again, so keep it now. Verify webhook-signature with it as it is (a Standard Webhooks library in its default mode) and X-SVC-Signature-256 with its UTF-8 bytes, the whole string.',
  })
  secret?: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'Until when, ISO 8601 UTC, the replaced secret also signs webhook-signature; null when the rotation asked for no overlap.',
  })
  previous_secret_expires_at!: string | null;
}
