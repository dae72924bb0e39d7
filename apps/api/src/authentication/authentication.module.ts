import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AccessTokenVerifier,
  ApiKeysService,
  PortalLifetimes,
  PortalSessionsService,
} from '@svc/identity';
import { BearerAuthGuard } from './bearer-auth.guard';

@Global()
@Module({})
export class AuthenticationModule {
  /**
   * API keys always; OAuth access tokens too when a verifier factory is given, and portal
   * sessions (ADR 0042) when their lifetimes are.
   */
  static forRoot(
    options: {
      accessTokens?: (db: DataSource) => AccessTokenVerifier;
      portalSessions?: PortalLifetimes;
    } = {},
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
    const exports: Provider[] = [ApiKeysService, BearerAuthGuard];
    const portalLifetimes = options.portalSessions;
    if (portalLifetimes) {
      const portalSessions: Provider = {
        provide: PortalSessionsService,
        useFactory: (db: DataSource) => new PortalSessionsService(db, portalLifetimes),
        inject: [DataSource],
      };
      providers.push(portalSessions);
      exports.push(PortalSessionsService);
    }
    return { module: AuthenticationModule, providers, exports };
  }
}
