import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessTokenVerifier, ApiKeysService } from '@svc/identity';
import { BearerAuthGuard } from './bearer-auth.guard';

@Global()
@Module({})
export class AuthenticationModule {
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
    return { module: AuthenticationModule, providers, exports: [ApiKeysService, BearerAuthGuard] };
  }
}
