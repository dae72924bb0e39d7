import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '@svc/config';
import { ConfigModule } from './config.module';
import { SubjectScheme } from '@svc/contracts';
import { DatabaseModule, DatabaseReadinessCheck } from './database.module';
import { OperationsModule, ReadinessCheck } from '@svc/http';
import { MessagingModule, NatsConnectionManager } from '@svc/messaging';
import { Registry } from 'prom-client';

/**
 * What every app of the service stands on: its configuration, PostgreSQL, NATS, and the
 * operator endpoints (/healthz, /readyz ready when PostgreSQL and NATS answer, /metrics), and the
 * deployment's NATS subject scheme.
 */
@Global()
@Module({})
export class PlatformModule {
  /** `readiness`: what else the app must have to be ready (the engine: its records are written). */
  static forApp(
    app: string,
    config: AppConfig,
    registry: Registry,
    readiness: ReadinessCheck[] = [],
  ): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.database, `svc-${app}`),
        MessagingModule.forRoot({ servers: config.nats.servers, name: `svc-${app}` }),
        OperationsModule.forApp({
          registry,
          readiness: [DatabaseReadinessCheck, NatsConnectionManager],
          readinessInstances: readiness,
        }),
      ],
      providers: [
        { provide: SubjectScheme, useValue: new SubjectScheme(config.jetstream.subjectRoot) },
      ],
      exports: [SubjectScheme],
    };
  }
}
