import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { APP_CONFIG, AuthAppConfig } from '@svc/config';
import { authorizationServerMetadata } from './authorization-server-metadata';

/** RFC 8414 3: the metadata document at the well-known path under the issuer. */
@ApiExcludeController()
@Controller('.well-known/oauth-authorization-server')
export class AuthorizationServerMetadataController {
  private readonly metadata: ReturnType<typeof authorizationServerMetadata>;

  constructor(@Inject(APP_CONFIG) config: AuthAppConfig) {
    this.metadata = authorizationServerMetadata(config.auth.issuer);
  }

  @Get()
  @Header('cache-control', 'public, max-age=300')
  show() {
    return this.metadata;
  }
}
