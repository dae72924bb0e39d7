import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@svc/config';
import { loadSigningKeys } from '@svc/oauth';
import { PlatformModule } from '@svc/platform';
import { Registry } from 'prom-client';
import { JwksController, SIGNING_KEYS } from './keys/jwks.controller';

/**
 * The authorization server (OAuth 2.0 + PKCE). For now: its signing keys and their JWKS; the
 * authorization and token endpoints come next (issue 4).
 */
@Module({})
export class AuthModule {
  static forRoot(config: AppConfig, registry: Registry): DynamicModule {
    return {
      module: AuthModule,
      imports: [PlatformModule.forApp('auth', config, registry)],
      controllers: [JwksController],
      providers: [
        {
          provide: SIGNING_KEYS,
          useFactory: (c: AppConfig) =>
            loadSigningKeys(c.auth.signingKeys, c.nodeEnv === 'production'),
          inject: [APP_CONFIG],
        },
      ],
    };
  }
}
