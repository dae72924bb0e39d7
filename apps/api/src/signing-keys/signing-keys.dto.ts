import { ApiProperty } from '@nestjs/swagger';

/** One public key of the JWKS (RFC 7517, RFC 8037): an Ed25519 key as a receiver imports it. */
export class WebhookSigningJwk {
  @ApiProperty({ enum: ['OKP'], example: 'OKP' })
  kty!: 'OKP';

  @ApiProperty({ enum: ['Ed25519'], example: 'Ed25519' })
  crv!: 'Ed25519';

  @ApiProperty({
    description: 'The raw 32-byte public key, base64url without padding.',
    example: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
  })
  x!: string;

  @ApiProperty({
    description: 'The key id (whk_<ulid>). Try every key on every v1a entry: there are one or two.',
    example: 'whk_01jbq4m2x3y4z5a6b7c8d9e0f1',
  })
  kid!: string;

  @ApiProperty({ enum: ['sig'], example: 'sig' })
  use!: 'sig';

  @ApiProperty({ enum: ['EdDSA'], example: 'EdDSA' })
  alg!: 'EdDSA';
}

export class WebhookSigningKeySet {
  @ApiProperty({
    type: [WebhookSigningJwk],
    description:
      'Every key a delivery may be signed with: the current one, and during and shortly after a rotation the previous one. Newest first.',
  })
  keys!: WebhookSigningJwk[];
}
