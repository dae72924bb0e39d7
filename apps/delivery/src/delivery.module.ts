import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@svc/config';
import { DatabaseModule, DatabaseReadinessCheck } from '@svc/database';
import { OperationsModule } from '@svc/http';
import { MessagingModule, NatsConnectionManager } from '@svc/messaging';
import { Registry } from 'prom-client';

/** The delivery engine grows here; for now it boots, answers health and exports metrics. */
@Module({})
export class DeliveryModule {
  static forRoot(config: AppConfig, registry: Registry): DynamicModule {
    return {
      module: DeliveryModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.database),
        MessagingModule.forRoot({ servers: config.nats.servers, name: 'svc-delivery' }),
        OperationsModule.forApp({
          registry,
          readiness: [DatabaseReadinessCheck, NatsConnectionManager],
        }),
      ],
    };
  }
}
