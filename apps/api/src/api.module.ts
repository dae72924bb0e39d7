import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiConfig } from '@svc/config';
import { AuthenticationModule } from './authentication/authentication.module';
import { BearerAuthGuard } from './authentication/bearer-auth.guard';
import { AccessTokenVerifier, GrantRevocations } from '@svc/identity';
import { createRemoteJWKSet } from 'jose';
import { PlatformModule } from '@svc/platform';
import { TenantsService } from '@svc/tenants';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { AuditEventsController } from './audit/audit-events.controller';
import { AuditEventsService } from './audit/audit-events.service';
import { DeliveryLogController } from './delivery-log/delivery-log.controller';
import { DeliveryLogService } from './delivery-log/delivery-log.service';
import { EndpointStatsController } from './endpoint-stats/endpoint-stats.controller';
import { EndpointStatsService } from './endpoint-stats/endpoint-stats.service';
import { OpenApiController, OpenApiDocument } from './openapi/openapi.controller';
import { PortalSessionsController } from './portal-sessions/portal-sessions.controller';
import { EventTypesController } from './event-types/event-types.controller';
import { DeliveryReplayController } from './replay/delivery-replay.controller';
import {
  DeliveryReplayService,
  REPLAY_OPTIONS,
  replayOptionsOf,
} from './replay/delivery-replay.service';
import { SigningKeysModule } from './signing-keys/signing-keys.module';
import { TenantsController } from './tenants/tenants.controller';
import { UndeliveredController } from './undelivered/undelivered.controller';
import { UndeliveredService } from './undelivered/undelivered.service';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class ApiModule {
  static forRoot(config: ApiConfig, registry: Registry): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        PlatformModule.forApp('api', config, registry),
        AuthenticationModule.forRoot({
          // Keys are fetched from the authorization server when a token names an unknown key id,
          // and cached: verification makes no call to it per request. Revocation is read from the
          // shared database (one primary-key lookup, as for API keys).
          accessTokens: (db) => {
            const revocations = new GrantRevocations(db);
            return new AccessTokenVerifier(
              createRemoteJWKSet(new URL(config.auth.jwksUrl), {
                cooldownDuration: 30_000,
                cacheMaxAge: 600_000,
              }),
              config.auth.issuer,
              config.auth.audience,
              (grantId) => revocations.isRevoked(grantId),
            );
          },
          portalSessions: {
            linkTtlMs: config.console.portalLinkTtlMs,
            sessionTtlMs: config.console.portalSessionTtlMs,
          },
        }),
        WebhooksModule,
        SigningKeysModule,
      ],
      controllers: [
        TenantsController,
        EventTypesController,
        DeliveryLogController,
        EndpointStatsController,
        DeliveryReplayController,
        PortalSessionsController,
        UndeliveredController,
        AuditEventsController,
        OpenApiController,
      ],
      providers: [
        { provide: APP_GUARD, useExisting: BearerAuthGuard },
        {
          provide: TenantsService,
          useFactory: (db: DataSource) => new TenantsService(db),
          inject: [DataSource],
        },
        OpenApiDocument,
        DeliveryLogService,
        AuditEventsService,
        EndpointStatsService,
        DeliveryReplayService,
        UndeliveredService,
        { provide: REPLAY_OPTIONS, useValue: replayOptionsOf(config) },
      ],
    };
  }
}
