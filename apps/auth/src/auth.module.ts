import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@svc/config';
import { DatabaseModule, DatabaseReadinessCheck } from '@svc/database';
import { OperationsModule } from '@svc/http';
import { MessagingModule, NatsConnectionManager } from '@svc/messaging';
import { Registry } from 'prom-client';

/** The authorization server (OAuth 2.0 + PKCE) grows here; for now it boots, answers health and exports metrics. */
@Module({})
export class AuthModule {
  static forRoot(config: AppConfig, registry: Registry): DynamicModule {
    return {
      module: AuthModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.database),
        MessagingModule.forRoot({ servers: config.nats.servers, name: 'svc-auth' }),
        OperationsModule.forApp({
          registry,
          readiness: [DatabaseReadinessCheck, NatsConnectionManager],
        }),
      ],
    };
  }
}
