import {
  BeforeApplicationShutdown,
  DynamicModule,
  Injectable,
  Module,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { DeliveryAppConfig } from '@svc/config';
import { SubjectScheme } from '@svc/contracts';
import { ReadinessCheck } from '@svc/http';
import { NatsConnectionManager } from '@svc/messaging';
import { PlatformModule } from '@svc/platform';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { DeliveryEngine } from './delivery-engine';
import { buildEngine } from './engine';
import { ENGINE_TUNING } from './engine-tuning';
import { RecordingHealth } from './recording/recording-health';

/** Starts the engine once the app is up, and stops it (drained) before the connections close. */
@Injectable()
class DeliveryLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(private readonly engine: DeliveryEngine) {}

  onApplicationBootstrap(): void {
    this.engine.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.engine.stop();
  }
}

/** Ready once the engine consumes (built after the readiness checks are listed, hence late). */
class EngineStarted implements ReadinessCheck {
  readonly name = 'engine';
  engine: DeliveryEngine | undefined;

  check(): Promise<void> {
    return this.engine?.checkStarted() ?? Promise.reject(new Error('not built yet'));
  }
}

/**
 * The delivery engine in Nest: the platform's connections in, the engine out (built by
 * `buildEngine`, engine.ts), and its lifecycle. JetStream in, signed HTTPS out, every attempt an
 * event.
 */
@Module({})
export class DeliveryModule {
  static forRoot(config: DeliveryAppConfig, registry: Registry): DynamicModule {
    const health = new RecordingHealth(ENGINE_TUNING.recordingProbeIntervalMs);
    const started = new EngineStarted();
    return {
      module: DeliveryModule,
      imports: [
        PlatformModule.forApp('delivery', config, registry, [health, started], {
          readyOnNats: 'consumer',
        }),
      ],
      providers: [
        {
          provide: DeliveryEngine,
          // The platform's three connections; everything else is built, typed, by buildEngine.
          useFactory: (
            dataSource: DataSource,
            nats: NatsConnectionManager,
            subjects: SubjectScheme,
          ) => {
            const engine = buildEngine(config, {
              dataSource,
              nats,
              subjects,
              metricsRegistry: registry,
              health,
            });
            started.engine = engine;
            return engine;
          },
          inject: [DataSource, NatsConnectionManager, SubjectScheme],
        },
        DeliveryLifecycle,
      ],
    };
  }
}
