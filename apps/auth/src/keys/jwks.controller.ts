import { Controller, Get, Header, Inject } from '@nestjs/common';
import type { JWK } from 'jose';
import type { SigningKey } from '@svc/oauth';

export const SIGNING_KEYS = Symbol('SIGNING_KEYS');

/** The public halves of the token signing keys, for resource servers to verify access tokens. */
@Controller('.well-known')
export class JwksController {
  constructor(@Inject(SIGNING_KEYS) private readonly keys: SigningKey[]) {}

  @Get('jwks.json')
  @Header('cache-control', 'public, max-age=300')
  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((key) => key.publicJwk) };
  }
}
