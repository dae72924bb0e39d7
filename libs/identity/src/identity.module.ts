import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { AccessTokenVerifier } from '@svc/oauth';
import { DataSource } from 'typeorm';
import { ApiKeysService } from './api-keys/api-keys.service';
import { BearerAuthGuard } from './guards/bearer-auth.guard';

@Global()
@Module({})
export class IdentityModule {
  /** API keys always; OAuth access tokens too when a verifier factory is given. */
  static forRoot(
    options: { accessTokens?: (db: DataSource) => AccessTokenVerifier } = {},
  ): DynamicModule {
    const providers: Provider[] = [
      {
        provide: ApiKeysService,
        useFactory: (db: DataSource) => new ApiKeysService(db),
        inject: [DataSource],
      },
      BearerAuthGuard,
    ];
    if (options.accessTokens) {
      providers.push({
        provide: AccessTokenVerifier,
        useFactory: options.accessTokens,
        inject: [DataSource],
      });
    }
    return { module: IdentityModule, providers, exports: [ApiKeysService, BearerAuthGuard] };
  }
}
