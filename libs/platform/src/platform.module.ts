import { DynamicModule, Global, Module } from '@nestjs/common';
import { DatabaseSettings, JetStreamSettings, NatsSettings } from '@svc/config';
import { ConfigModule } from './config.module';
import { SubjectScheme } from '@svc/contracts';
import { DatabaseModule, DatabaseReadinessCheck } from './database.module';
import { DatabasePoolMetrics } from './database-pool-metrics';
import { OperationsModule, ReadinessCheck } from '@svc/http';
import { JetStreamConsumerMonitor, MessagingModule, NatsConnectionManager } from '@svc/messaging';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';

export interface PlatformOptions {
  /**
   * What /readyz waits for besides PostgreSQL (ADR 0020). `none` (the default: api, auth): a
   * NATS outage leaves them ready, as they keep serving without it. `consumer` (the delivery
   * engine): NATS answers and the engine's durable JetStream consumer exists.
   */
  readyOnNats?: 'none' | 'consumer';
}

/**
 * What the platform reads of an app's configuration; the JetStream consumer's names only when
 * readiness waits for it (the delivery engine).
 */
export interface PlatformConfig {
  database: DatabaseSettings;
  nats: NatsSettings;
  jetstream: Pick<JetStreamSettings, 'subjectRoot'> &
    Partial<Pick<JetStreamSettings, 'eventsStream' | 'consumer'>>;
}

/**
 * What every app of the service stands on: its configuration, PostgreSQL, NATS, and the
 * operator endpoints (/healthz, /readyz, /metrics), and the deployment's NATS subject scheme.
 */
@Global()
@Module({})
export class PlatformModule {
  /** `readiness`: what else the app must have to be ready (the engine: its records are written). */
  static forApp(
    app: string,
    config: PlatformConfig,
    registry: Registry,
    readiness: ReadinessCheck[] = [],
    options: PlatformOptions = {},
  ): DynamicModule {
    const watchConsumer = options.readyOnNats === 'consumer';
    const watched = watchConsumer ? watchedConsumer(config) : undefined;
    return {
      module: PlatformModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.database, `svc-${app}`),
        MessagingModule.forRoot(
          { settings: config.nats, name: `svc-${app}`, registry },
          watched && { ...watched, registry },
        ),
        OperationsModule.forApp({
          registry,
          readiness: watchConsumer
            ? [DatabaseReadinessCheck, NatsConnectionManager, JetStreamConsumerMonitor]
            : [DatabaseReadinessCheck],
          readinessInstances: readiness,
        }),
      ],
      providers: [
        { provide: SubjectScheme, useValue: new SubjectScheme(config.jetstream.subjectRoot) },
        {
          provide: DatabasePoolMetrics,
          useFactory: (dataSource: DataSource) =>
            new DatabasePoolMetrics(dataSource, registry, config.database.poolSize),
          inject: [DataSource],
        },
      ],
      exports: [SubjectScheme],
    };
  }
}

/** The durable consumer readiness waits for: the engine's configuration names it (JetStream). */
function watchedConsumer(config: PlatformConfig): { stream: string; consumer: string } {
  const { eventsStream, consumer } = config.jetstream;
  if (!eventsStream || !consumer) {
    throw new Error('readyOnNats: consumer needs the JetStream section of the configuration');
  }
  return { stream: eventsStream, consumer };
}
