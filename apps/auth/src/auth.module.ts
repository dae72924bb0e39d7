import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@svc/config';
import { PlatformModule } from '@svc/platform';
import { Registry } from 'prom-client';

/** The authorization server (OAuth 2.0 + PKCE) grows here; for now it boots, answers health and exports metrics. */
@Module({})
export class AuthModule {
  static forRoot(config: AppConfig, registry: Registry): DynamicModule {
    return { module: AuthModule, imports: [PlatformModule.forApp('auth', config, registry)] };
  }
}
