import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AppConfig, ConfigModule } from '@svc/config';
import { DatabaseModule, DatabaseReadinessCheck } from '@svc/database';
import { OperationsModule } from '@svc/http';
import { BearerAuthGuard, IdentityModule } from '@svc/identity';
import { MessagingModule, NatsConnectionManager } from '@svc/messaging';
import { TenantsService } from '@svc/tenants';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { OpenApiController, OpenApiDocument } from './openapi/openapi.controller';
import { TenantsController } from './tenants/tenants.controller';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class ApiModule {
  static forRoot(config: AppConfig, registry: Registry) {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.database),
        MessagingModule.forRoot({ servers: config.nats.servers, name: 'svc-api' }),
        OperationsModule.forApp({
          registry,
          readiness: [DatabaseReadinessCheck, NatsConnectionManager],
        }),
        IdentityModule,
        WebhooksModule,
      ],
      controllers: [TenantsController, OpenApiController],
      providers: [
        { provide: APP_GUARD, useExisting: BearerAuthGuard },
        {
          provide: TenantsService,
          useFactory: (db: DataSource) => new TenantsService(db),
          inject: [DataSource],
        },
        OpenApiDocument,
      ],
    };
  }
}
