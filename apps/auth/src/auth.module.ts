import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AuthAppConfig } from '@svc/config';
import {
  AccessTokenIssuer,
  AccessTokenVerifier,
  ClientAddresses,
  GrantsService,
  loadSigningKeys,
  LoginThrottle,
  OAuthClientsService,
  PasswordSignIn,
  SigningKey,
  SignInSessions,
  UsersService,
} from '@svc/oauth';
import { PlatformModule } from '@svc/platform';
import { createLocalJWKSet } from 'jose';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { AuthMetrics } from './auth-metrics';
import { AuthorizeController } from './authorize/authorize.controller';
import { CsrfProtection } from './browser/csrf-protection';
import { ConsoleClientRegistration } from './console/console-client-registration';
import { ExpiredStateSweeper } from './housekeeping/expired-state-sweeper';
import { JwksController, SIGNING_KEYS } from './keys/jwks.controller';
import { AuthorizationServerMetadataController } from './metadata/authorization-server-metadata.controller';
import { OWN_ACCESS_TOKENS, RevocationController } from './revocation/revocation.controller';
import { SignInController } from './sign-in/sign-in.controller';
import { TokenController } from './token/token.controller';

const withDataSource = <T>(make: (db: DataSource) => T) => ({
  useFactory: make,
  inject: [DataSource],
});

/**
 * The authorization server (spec 4.3, 4.4, 5.2): authorization code with PKCE, the sign-in and
 * consent pages, the token and revocation endpoints, its metadata and the JWKS of its keys.
 */
@Module({})
export class AuthModule {
  static forRoot(config: AuthAppConfig, registry: Registry): DynamicModule {
    return {
      module: AuthModule,
      imports: [PlatformModule.forApp('auth', config, registry)],
      controllers: [
        AuthorizationServerMetadataController,
        JwksController,
        AuthorizeController,
        SignInController,
        TokenController,
        RevocationController,
      ],
      providers: [
        ExpiredStateSweeper,
        ConsoleClientRegistration,
        { provide: AuthMetrics, useValue: new AuthMetrics(registry) },
        {
          provide: SIGNING_KEYS,
          useFactory: (c: AuthAppConfig) =>
            loadSigningKeys(c.auth.signingKeys, c.nodeEnv === 'production'),
          inject: [APP_CONFIG],
        },
        {
          provide: AccessTokenIssuer,
          useFactory: (keys: SigningKey[]) =>
            new AccessTokenIssuer(keys, config.auth.issuer, config.auth.audience),
          inject: [SIGNING_KEYS],
        },
        {
          provide: OWN_ACCESS_TOKENS,
          useFactory: (keys: SigningKey[]) =>
            new AccessTokenVerifier(
              createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) }),
              config.auth.issuer,
              config.auth.audience,
            ),
          inject: [SIGNING_KEYS],
        },
        {
          provide: GrantsService,
          useFactory: (db: DataSource, issuer: AccessTokenIssuer) => new GrantsService(db, issuer),
          inject: [DataSource, AccessTokenIssuer],
        },
        { provide: OAuthClientsService, ...withDataSource((db) => new OAuthClientsService(db)) },
        { provide: UsersService, ...withDataSource((db) => new UsersService(db)) },
        { provide: SignInSessions, ...withDataSource((db) => new SignInSessions(db)) },
        {
          provide: LoginThrottle,
          ...withDataSource((db) => {
            const { accountMaxFailures, addressMaxFailures, windowSeconds } =
              config.auth.signInThrottle;
            return new LoginThrottle(db, {
              account: { maxFailures: accountMaxFailures, windowSeconds },
              address: { maxFailures: addressMaxFailures, windowSeconds },
            });
          }),
        },
        {
          provide: PasswordSignIn,
          useFactory: (users: UsersService, throttle: LoginThrottle) =>
            new PasswordSignIn(users, throttle),
          inject: [UsersService, LoginThrottle],
        },
        { provide: ClientAddresses, useValue: new ClientAddresses(config.auth.trustedProxies) },
        {
          provide: CsrfProtection,
          useValue: new CsrfProtection(new URL(config.auth.issuer).origin),
        },
      ],
    };
  }
}
