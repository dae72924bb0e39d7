import { DynamicModule, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@svc/config';
import { METRICS_REGISTRY } from '@svc/http';
import { PlatformModule } from '@svc/platform';
import { SecretCipher } from '@svc/secrets';
import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { DeliveryEngine } from './delivery-engine';
import { DeliveryMetrics } from './delivery-metrics';
import { AttemptRunner } from './dispatch/attempt-runner';
import { ConcurrencyLimits } from './dispatch/concurrency-limits';
import { HttpSender } from './dispatch/http-sender';
import { EndpointDirectory } from './fan-out/endpoint-directory';
import { DeliveryRecorder } from './recording/delivery-recorder';
import { RecordingHealth } from './recording/recording-health';

/** Group commit: records per transaction, their wait for company, and transactions at once. */
const RECORDER = { maxBatch: 500, lingerMs: 2, maxConcurrentCommits: 3 };

/** The delivery engine: JetStream in, signed HTTPS out, every attempt an event (README, "Architecture"). */
@Module({})
export class DeliveryModule {
  static forRoot(config: AppConfig, registry: Registry): DynamicModule {
    const health = new RecordingHealth();
    return {
      module: DeliveryModule,
      imports: [
        PlatformModule.forApp('delivery', config, registry, [health], { readyOnNats: 'consumer' }),
      ],
      providers: [
        DeliveryEngine,
        { provide: RecordingHealth, useValue: health },
        {
          provide: SecretCipher,
          useFactory: (c: AppConfig) => new SecretCipher(c.secrets.encryptionKeys),
          inject: [APP_CONFIG],
        },
        {
          provide: DeliveryMetrics,
          useFactory: (r: Registry) => new DeliveryMetrics(r),
          inject: [METRICS_REGISTRY],
        },
        {
          provide: HttpSender,
          useFactory: (c: AppConfig) =>
            new HttpSender({
              timeoutMs: c.delivery.timeoutMs,
              allowList: new PrivateNetworkAllowList(c.webhooks.allowedPrivateCidrs),
              extraCaFile: c.delivery.extraCaFile,
              connectionsPerOrigin: c.delivery.maxConcurrencyPerEndpoint,
            }),
          inject: [APP_CONFIG],
        },
        {
          provide: ConcurrencyLimits,
          useFactory: (c: AppConfig) =>
            new ConcurrencyLimits(c.delivery.maxConcurrency, c.delivery.maxConcurrencyPerEndpoint),
          inject: [APP_CONFIG],
        },
        {
          provide: EndpointDirectory,
          useFactory: (db: DataSource, cipher: SecretCipher) => new EndpointDirectory(db, cipher),
          inject: [DataSource, SecretCipher],
        },
        {
          provide: DeliveryRecorder,
          useFactory: (db: DataSource, metrics: DeliveryMetrics) => {
            health.probeWith(() => db.query('SELECT 1'));
            return new DeliveryRecorder(db, metrics, RECORDER, health);
          },
          inject: [DataSource, DeliveryMetrics],
        },
        {
          provide: AttemptRunner,
          useFactory: (
            c: AppConfig,
            sender: HttpSender,
            recorder: DeliveryRecorder,
            metrics: DeliveryMetrics,
          ) =>
            new AttemptRunner(sender, recorder, metrics, {
              retryScheduleMs: c.delivery.retryScheduleMs,
              maxAttempts: c.delivery.maxAttempts,
            }),
          inject: [APP_CONFIG, HttpSender, DeliveryRecorder, DeliveryMetrics],
        },
      ],
    };
  }
}
