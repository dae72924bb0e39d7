import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@svc/config';
import { SubjectScheme } from '@svc/contracts';
import { DeliveryWorkQueue } from '@svc/deliveries';
import { connectionPoolOf } from '@svc/event-store';
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
import { EndpointRateLimiter, PostgresRateWindows } from './dispatch/endpoint-rate-limiter';
import { HttpSender } from './dispatch/http-sender';
import { ENGINE_TUNING } from './engine-tuning';
import { EndpointDirectory } from './fan-out/endpoint-directory';
import { DeadLetterPark } from './intake/dead-letter';
import { EventIntake, EventIntakeFactory } from './intake/event-intake';
import { EventsInHand } from './intake/events-in-hand';
import { LaneManager } from './intake/lanes/lane-manager';
import { LaneRegistry } from './intake/lanes/lane-registry';
import { OperationalEventsRelay } from './operational-events/outbox-relay';
import { DeliveryRecorder } from './recording/delivery-recorder';
import { RecordingHealth } from './recording/recording-health';
import { RetentionKeeper } from './retention/retention-keeper';
import { RetryScheduler } from './retries/retry-scheduler';

/**
 * The delivery engine's composition root: every part is built here, from the configuration and
 * ENGINE_TUNING, and nowhere else (docs/architecture.md). JetStream in, signed HTTPS out,
 * every attempt an event.
 */
@Module({})
export class DeliveryModule {
  static forRoot(config: AppConfig, registry: Registry): DynamicModule {
    const health = new RecordingHealth(ENGINE_TUNING.recordingProbeIntervalMs);
    const { delivery, jetstream } = config;
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
          useFactory: () => new SecretCipher(config.secrets.encryptionKeys),
        },
        {
          provide: DeliveryMetrics,
          useFactory: (r: Registry) => new DeliveryMetrics(r),
          inject: [METRICS_REGISTRY],
        },
        {
          provide: HttpSender,
          useFactory: () =>
            new HttpSender({
              timeoutMs: delivery.timeoutMs,
              allowList: new PrivateNetworkAllowList(config.webhooks.allowedPrivateCidrs),
              extraCaFile: delivery.extraCaFile,
              connectionsPerOrigin: delivery.maxConcurrencyPerEndpoint,
            }),
        },
        {
          provide: ConcurrencyLimits,
          useFactory: (db: DataSource) =>
            new ConcurrencyLimits(
              delivery.maxConcurrency,
              delivery.maxConcurrencyPerEndpoint,
              new EndpointRateLimiter(new PostgresRateWindows(db), ENGINE_TUNING.rateLimit),
              LaneManager.laneSlotsOf(delivery.maxConcurrency, delivery.fairness),
            ),
          inject: [DataSource],
        },
        {
          provide: EndpointDirectory,
          useFactory: (db: DataSource, cipher: SecretCipher) =>
            new EndpointDirectory(db, cipher, { ttlMs: ENGINE_TUNING.directoryTtlMs }),
          inject: [DataSource, SecretCipher],
        },
        {
          provide: DeliveryWorkQueue,
          useFactory: (db: DataSource) => new DeliveryWorkQueue(db),
          inject: [DataSource],
        },
        {
          provide: DeliveryRecorder,
          useFactory: (db: DataSource, metrics: DeliveryMetrics) => {
            health.probeWith(() => db.query('SELECT 1'));
            health.watchConnections(connectionPoolOf(db)!);
            return new DeliveryRecorder(db, metrics, ENGINE_TUNING.recorder, health);
          },
          inject: [DataSource, DeliveryMetrics],
        },
        {
          provide: AttemptRunner,
          useFactory: (sender: HttpSender, recorder: DeliveryRecorder, metrics: DeliveryMetrics) =>
            new AttemptRunner(
              sender,
              recorder,
              metrics,
              { retryScheduleMs: delivery.retryScheduleMs, maxAttempts: delivery.maxAttempts },
              health,
            ),
          inject: [HttpSender, DeliveryRecorder, DeliveryMetrics],
        },
        {
          provide: OperationalEventsRelay,
          useFactory: (db: DataSource, metrics: DeliveryMetrics) =>
            new OperationalEventsRelay(
              { dataSource: db, metrics },
              ENGINE_TUNING.operationalEvents,
            ),
          inject: [DataSource, DeliveryMetrics],
        },
        {
          provide: RetentionKeeper,
          useFactory: (db: DataSource, r: Registry) => {
            const { minIntervalMs, maxIntervalMs } = ENGINE_TUNING.retention;
            const quarter = config.retention.partitionWidthMs / 4;
            return new RetentionKeeper(db, r, {
              settings: config.retention,
              intervalMs: Math.max(minIntervalMs, Math.min(maxIntervalMs, quarter)),
            });
          },
          inject: [DataSource, METRICS_REGISTRY],
        },
        {
          provide: RetryScheduler,
          useFactory: (
            queue: DeliveryWorkQueue,
            directory: EndpointDirectory,
            runner: AttemptRunner,
            recorder: DeliveryRecorder,
            limits: ConcurrencyLimits,
            metrics: DeliveryMetrics,
          ) =>
            new RetryScheduler(
              { queue, directory, runner, recorder, limits, metrics, health },
              {
                intervalMs: delivery.schedulerIntervalMs,
                leaseMs: delivery.timeoutMs + ENGINE_TUNING.scheduler.claimMarginMs,
                batchSize: ENGINE_TUNING.scheduler.batchSize,
                busyEndpointDelayMs: ENGINE_TUNING.scheduler.busyEndpointDelayMs,
                globalMax: delivery.maxConcurrency,
                backlogSampleMs: ENGINE_TUNING.scheduler.backlogSampleMs,
              },
            ),
          inject: [
            DeliveryWorkQueue,
            EndpointDirectory,
            AttemptRunner,
            DeliveryRecorder,
            ConcurrencyLimits,
            DeliveryMetrics,
          ],
        },
        {
          provide: EventIntakeFactory,
          useFactory: (
            db: DataSource,
            subjects: SubjectScheme,
            queue: DeliveryWorkQueue,
            directory: EndpointDirectory,
            runner: AttemptRunner,
            recorder: DeliveryRecorder,
            limits: ConcurrencyLimits,
            metrics: DeliveryMetrics,
          ) => {
            // One for every intake of the engine: a lane and the main intake may hold copies of
            // one event at once.
            const eventsInHand = new EventsInHand();
            return new EventIntakeFactory(
              (consumer, js, role) =>
                new EventIntake(
                  {
                    consumer,
                    subjects,
                    directory,
                    runner,
                    recorder,
                    limits,
                    deadLetter: new DeadLetterPark(js, subjects, db, metrics),
                    metrics,
                    queue,
                    health,
                    eventsInHand,
                  },
                  {
                    maxMessagesInFlight: Math.min(delivery.maxConcurrency, jetstream.maxAckPending),
                    maxDeliveriesInFlight: delivery.maxConcurrency,
                    busyEndpointDelayMs: ENGINE_TUNING.intake.busyEndpointDelayMs,
                    retryFailedMessageMs: ENGINE_TUNING.intake.retryFailedMessageMs,
                    ackWaitMs: jetstream.ackWaitMs,
                    retention: config.retention,
                    pullBatch: ENGINE_TUNING.intake.pullBatch,
                    skipPullBatch: Math.max(
                      ENGINE_TUNING.intake.pullBatch,
                      Math.min(
                        ENGINE_TUNING.intake.skipPullBatch,
                        Math.floor(jetstream.maxAckPending / 2),
                      ),
                    ),
                    pullExpiresMs: ENGINE_TUNING.intake.pullExpiresMs,
                    retryFailedPullMs: ENGINE_TUNING.intake.retryFailedPullMs,
                    tenantWindow: ENGINE_TUNING.intake.tenantWindow,
                    maxFanningOut: ENGINE_TUNING.intake.maxFanningOut,
                    maxSlotWaitsPerTenant: ENGINE_TUNING.intake.maxSlotWaitsPerTenant,
                    yieldPollMs: ENGINE_TUNING.intake.yieldPollMs,
                  },
                  role,
                ),
            );
          },
          inject: [
            DataSource,
            SubjectScheme,
            DeliveryWorkQueue,
            EndpointDirectory,
            AttemptRunner,
            DeliveryRecorder,
            ConcurrencyLimits,
            DeliveryMetrics,
          ],
        },
        {
          provide: LaneManager,
          useFactory: (
            db: DataSource,
            intakes: EventIntakeFactory,
            metrics: DeliveryMetrics,
            subjects: SubjectScheme,
          ) =>
            new LaneManager(
              {
                registry: new LaneRegistry(db),
                intakes,
                metrics,
                subjects,
                jetstream,
                fairness: delivery.fairness,
                maxConcurrency: delivery.maxConcurrency,
              },
              ENGINE_TUNING.lanes,
            ),
          inject: [DataSource, EventIntakeFactory, DeliveryMetrics, SubjectScheme],
        },
      ],
    };
  }
}
