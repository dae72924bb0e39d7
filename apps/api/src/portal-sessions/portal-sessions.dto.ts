import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { isAcceptableReturnUrl, RETURN_URL_MAX_LENGTH } from '@svc/identity';
import { IsBoolean, IsDefined, IsOptional, IsString, ValidateBy } from 'class-validator';

const ENVIRONMENTS = ['live', 'test'] as const;

/** Only the shape and the address rule are checked; the credential's kind is the controller's. */
export class MintPortalSessionRequest {
  @ApiPropertyOptional({
    default: false,
    description:
      'A read-only session may read everything the console shows, and change nothing: every method but GET is refused with 403.',
  })
  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  read_only?: boolean;

  @ApiPropertyOptional({
    format: 'uri',
    maxLength: RETURN_URL_MAX_LENGTH,
    description:
      "Where the console offers to take the user when the session has expired or ended: the platform's own page. An absolute https URL (http only for localhost, 127.0.0.1 or [::1]), without user information.",
    example: 'https://app.example.com/settings/webhooks',
  })
  @IsOptional()
  @ValidateBy({
    name: 'isReturnUrl',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isAcceptableReturnUrl(value),
      defaultMessage: () =>
        `must be an absolute https URL (http only for localhost) of at most ${RETURN_URL_MAX_LENGTH} characters, without user information`,
    },
  })
  @IsString({ message: 'must be a string' })
  return_url?: string;
}

export class PortalLinkResponse {
  @ApiProperty({
    format: 'uri',
    description:
      "The console, opened on the tenant and environment of the credential that minted it: the link token is in the fragment (`#portal=svc_pl_…`), which browsers never send to a server. Works once; open it in a browser or an iframe of the platform's product.",
    example: 'https://svc.example.com/console/#portal=svc_pl_…',
  })
  url!: string;

  @ApiProperty({
    format: 'date-time',
    description: 'Until when the link may be used (once); after that, mint another.',
  })
  expires_at!: string;

  @ApiProperty() read_only!: boolean;
}

export class ExchangePortalLinkRequest {
  @ApiProperty({
    pattern: '^svc_pl_[A-Za-z0-9_-]{43}$',
    description: 'The link token, as found in the fragment of the portal link.',
    writeOnly: true,
  })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  token!: string;
}

export class PortalSessionResponse {
  @ApiProperty({
    pattern: '^svc_ps_[A-Za-z0-9_-]{43}$',
    description:
      'The session token, to send as "Authorization: Bearer <token>"; shown once. It grants webhooks:manage on the tenant and environment of the link (GET only when read_only).',
  })
  session_token!: string;

  @ApiProperty({ format: 'date-time', description: 'The session ends then; it is not renewed.' })
  expires_at!: string;

  @ApiProperty() read_only!: boolean;

  @ApiProperty({
    enum: ENVIRONMENTS,
    description: '`live`, or `test` for a session minted with a sandbox (svc_test_) key.',
  })
  environment!: (typeof ENVIRONMENTS)[number];

  @ApiProperty({ pattern: '^ten_' }) tenant_id!: string;

  @ApiProperty({
    type: String,
    format: 'uri',
    nullable: true,
    description: 'The return_url the platform gave when it minted the link, or null.',
  })
  return_url!: string | null;
}
