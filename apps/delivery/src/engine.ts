import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { DeliveryAppConfig } from '@svc/config';
import type { SubjectScheme } from '@svc/contracts';
import { DeliveryWorkQueue } from '@svc/deliveries';
import { connectionPoolOf } from '@svc/event-store';
import { NatsConnectionManager, operationalJetStreamNames } from '@svc/messaging';
import { SecretCipher } from '@svc/secrets';
import { SigningKeyStore } from '@svc/signing-keys';
import { PrivateNetworkAllowList } from '@svc/webhook-endpoints';
import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { consumerSource } from './adapters/jetstream/consumer-source';
import { DeadLetterPark } from './adapters/jetstream/dead-letter-park';
import { JetStreamLaneConsumers } from './adapters/jetstream/lane-consumers';
import { NatsLaneNotices } from './adapters/jetstream/lane-notices';
import { DeliveryEngine, JetStreamWiring } from './delivery-engine';
import { DeliveryMetrics, numberingStatementsMeasured } from './delivery-metrics';
import { AttemptRunner } from './dispatch/attempt-runner';
import { ConcurrencyLimits } from './dispatch/concurrency-limits';
import { Dispatcher } from './dispatch/dispatcher';
import { PostgresRateWindows } from './adapters/postgres/rate-windows';
import { EndpointRateLimiter } from './dispatch/endpoint-rate-limiter';
import { HttpSender } from './dispatch/http-sender';
import { OAuthTokenCache } from './dispatch/receiver-auth/oauth-token-cache';
import { ReceiverCredentials } from './dispatch/receiver-auth/receiver-credentials';
import { SigningKeyring } from './dispatch/signing-keyring';
import { ENGINE_TUNING, EngineTuning } from './engine-tuning';
import { EndpointDirectory } from './fan-out/endpoint-directory';
import { EventIntake, IntakeOptions } from './intake/event-intake';
import { EventsInHand } from './intake/events-in-hand';
import { TenantsTaken } from './intake/tenants-taken';
import { EventHandler } from './intake/handling/event-handler';
import {
  IntakePolicy,
  laneIntakePolicy,
  mainIntakePolicy,
  operationalIntakePolicy,
} from './intake/intake-policy';
import { LaneManager } from './intake/lanes/lane-manager';
import { LaneRegistry } from './adapters/postgres/lane-registry';
import { laneSlotsOf } from './intake/lanes/lane-rules';
import { LaneView } from './intake/lanes/lane-view';
import { MessageReplies } from './intake/message-replies';
import { OperationalEventsRelay } from './operational-events/outbox-relay';
import { Clock, MessageSource, SYSTEM_CLOCK } from './ports';
import { DeliveryRecorder } from './recording/delivery-recorder';
import { PostgresRecordWriter } from './adapters/postgres/postgres-record-writer';
import { RecordingHealth } from './recording/recording-health';
import { RetentionKeeper } from './retention/retention-keeper';
import { RetryScheduler } from './retries/retry-scheduler';

/** What the engine is built on: the app's connections, made by its platform module. */
export interface EngineInfrastructure {
  dataSource: DataSource;
  nats: NatsConnectionManager;
  subjects: SubjectScheme;
  metricsRegistry: Registry;
  /** Made before the module, as the readiness checks list it. */
  health: RecordingHealth;
}

/** The parts every intake shares, built before NATS is reachable. */
interface SharedParts {
  config: DeliveryAppConfig;
  tuning: EngineTuning;
  infra: EngineInfrastructure;
  clock: Clock;
  metrics: DeliveryMetrics;
  directory: EndpointDirectory;
  queue: DeliveryWorkQueue;
  recorder: DeliveryRecorder;
  dispatcher: Dispatcher;
  /** The engine's bounds on attempts in flight, globally and per endpoint. */
  limits: ConcurrencyLimits;
  /** Retries and re-drives, and the queues of FIFO endpoints the intakes tell of their work. */
  scheduler: RetryScheduler;
  laneView: LaneView;
  /** One for every intake of the engine: a lane and the main intake may hold copies of one event. */
  eventsInHand: EventsInHand;
  /** One for every intake of the engine: whether a tenant has the engine to itself (ADR 0050). */
  engineTenants: TenantsTaken;
}

/**
 * The delivery engine's composition root: every part built from the configuration and the
 * tuning, and nowhere else (docs/architecture.md). A plain function the compiler checks: the
 * PostgreSQL adapters and the dispatch at once, the JetStream ones once NATS is reachable
 * (`jetStreamWiring`).
 */
export function buildEngine(
  config: DeliveryAppConfig,
  infra: EngineInfrastructure,
  tuning: EngineTuning = ENGINE_TUNING,
): DeliveryEngine {
  const { delivery } = config;
  const { dataSource, health } = infra;
  const metrics = new DeliveryMetrics(infra.metricsRegistry);
  const sender = new HttpSender({
    timeoutMs: delivery.timeoutMs,
    allowList: new PrivateNetworkAllowList(config.webhooks.allowedPrivateCidrs),
    extraCaFile: delivery.extraCaFile,
    connectionsPerOrigin: delivery.maxConcurrencyPerEndpoint,
    proxyUrl: delivery.proxyUrl,
  });
  // Receivers' credentials (ADR 0048). Token requests go through the sender's shared pool (its
  // SSRF checks, trust store and proxy), so `sender.close()` closes their connections too.
  const credentials = new ReceiverCredentials(
    new OAuthTokenCache({ dispatcher: sender.sharedDispatcher, timeoutMs: delivery.timeoutMs }),
  );
  const limits = new ConcurrencyLimits(
    delivery.maxConcurrency,
    delivery.maxConcurrencyPerEndpoint,
    new EndpointRateLimiter(new PostgresRateWindows(dataSource), tuning.rateLimit),
    laneSlotsOf(delivery.maxConcurrency, delivery.fairness.laneConcurrencyShare),
  );
  const cipher = new SecretCipher(config.secrets.encryptionKeys);
  const directory = new EndpointDirectory(dataSource, cipher, { ttlMs: tuning.directoryTtlMs });
  const keyring = new SigningKeyring(new SigningKeyStore(dataSource, cipher));
  health.probeWith(() => dataSource.query('SELECT 1'));
  const pool = connectionPoolOf(dataSource);
  if (pool) {
    health.watchConnections(pool);
  }
  const recorder = new DeliveryRecorder(
    new PostgresRecordWriter(dataSource),
    metrics,
    tuning.recorder,
    health,
  );
  const runner = new AttemptRunner(
    sender,
    recorder,
    metrics,
    { retryScheduleMs: delivery.retryScheduleMs, maxAttempts: delivery.maxAttempts },
    health,
    keyring,
    credentials,
  );
  const parts: Omit<SharedParts, 'scheduler'> = {
    config,
    tuning,
    infra,
    clock: SYSTEM_CLOCK,
    metrics,
    directory,
    queue: new DeliveryWorkQueue(dataSource, numberingStatementsMeasured(metrics)),
    recorder,
    dispatcher: new Dispatcher(limits, runner, health),
    limits,
    laneView: new LaneView(
      {
        maxViewAgeMs: tuning.lanes.maxViewAgeMs,
        mainPutBackMs: tuning.lanes.mainPutBackMs,
        putBackMs: tuning.lanes.putBackMs,
        maxConcurrency: delivery.maxConcurrency,
        hotTenantShare: delivery.fairness.hotTenantShare,
      },
      SYSTEM_CLOCK,
    ),
    eventsInHand: new EventsInHand(),
    engineTenants: new TenantsTaken(() => SYSTEM_CLOCK.now()),
  };
  const scheduler = retryScheduler(parts);
  const shared: SharedParts = { ...parts, scheduler };
  const { minIntervalMs, maxIntervalMs } = tuning.retention;
  return new DeliveryEngine(
    {
      settings: config.jetstream,
      nats: infra.nats,
      subjects: infra.subjects,
      directory,
      recorder,
      sender,
      health,
      scheduler,
      retention: new RetentionKeeper(dataSource, infra.metricsRegistry, {
        settings: config.retention,
        intervalMs: Math.max(
          minIntervalMs,
          Math.min(maxIntervalMs, config.retention.partitionWidthMs / 4),
        ),
      }),
      relay: new OperationalEventsRelay({ dataSource, metrics }, tuning.operationalEvents),
      keyring,
      startRetryMs: tuning.startRetryMs,
    },
    jetStreamWiring(shared),
  );
}

function retryScheduler(shared: Omit<SharedParts, 'scheduler'>): RetryScheduler {
  const { config, tuning, infra } = shared;
  const { delivery } = config;
  return new RetryScheduler(
    {
      queue: shared.queue,
      directory: shared.directory,
      dispatcher: shared.dispatcher,
      recorder: shared.recorder,
      metrics: shared.metrics,
      health: infra.health,
      fullEndpoints: () => shared.limits.fullEndpoints(),
    },
    {
      intervalMs: delivery.schedulerIntervalMs,
      leaseMs: delivery.timeoutMs + tuning.scheduler.claimMarginMs,
      batchSize: tuning.scheduler.batchSize,
      busyEndpointDelayMs: tuning.scheduler.busyEndpointDelayMs,
      globalMax: delivery.maxConcurrency,
      backlogSampleMs: tuning.scheduler.backlogSampleMs,
    },
  );
}

/** An intake of `policy` reading `source`, its deliveries in hand bounded by `maxDeliveries`. */
type IntakeOn = (
  policy: IntakePolicy,
  source: MessageSource,
  maxDeliveries?: number,
) => EventIntake;

function intakesOn(js: JetStreamClient, shared: SharedParts): IntakeOn {
  const { config, tuning, infra, metrics, clock } = shared;
  const options = intakeOptionsOf(config, tuning);
  return (policy, source, maxDeliveries) =>
    new EventIntake(
      {
        source,
        handler: new EventHandler(
          {
            subjects: infra.subjects,
            ledger: shared.queue,
            subscribers: shared.directory,
            dispatcher: shared.dispatcher,
            records: shared.recorder,
            recording: infra.health,
            eventsInHand: shared.eventsInHand,
            orderedQueues: shared.scheduler,
            metrics,
            clock,
          },
          { retention: config.retention, busyEndpointDelayMs: tuning.intake.busyEndpointDelayMs },
          policy.source,
          policy.kind === 'lane' ? 'lane' : 'main',
        ),
        replies: new MessageReplies(
          {
            deadLetters: new DeadLetterPark(js, infra.subjects, infra.dataSource, metrics),
            recording: infra.health,
            metrics,
          },
          {
            retryFailedMessageMs: tuning.intake.retryFailedMessageMs,
            maxFailedHandlings: tuning.intake.maxFailedHandlings,
          },
        ),
        subjects: infra.subjects,
        metrics,
        clock,
        engineTenants: shared.engineTenants,
      },
      { ...options, maxDeliveriesInFlight: maxDeliveries ?? options.maxDeliveriesInFlight },
      policy,
    );
}

/** The intakes and the lanes, on a JetStream connection: the main consumer, lanes, ops events. */
function jetStreamWiring(shared: SharedParts) {
  const { config, tuning, infra, laneView } = shared;
  const { jetstream: settings, delivery } = config;
  return async (connection: NatsConnection): Promise<JetStreamWiring> => {
    const js = jetstream(connection);
    const intake = intakesOn(js, shared);
    const main = intake(
      mainIntakePolicy(laneView),
      consumerSource(await js.consumers.get(settings.eventsStream, settings.consumer)),
    );
    const laneConsumers = new JetStreamLaneConsumers(await jetstreamManager(connection), settings);
    const mainIsBehind = () => main.lagMs() > tuning.lanes.mainLagLimitMs;
    const lanes = new LaneManager(
      {
        store: new LaneRegistry(infra.dataSource),
        consumers: laneConsumers,
        notices: new NatsLaneNotices(connection, infra.subjects),
        makeIntake: async (lane, budget) => {
          await laneConsumers.ensure(lane);
          const consumer = await js.consumers.get(settings.eventsStream, lane.consumerName);
          const policy = laneIntakePolicy(lane.tenantId, laneView, mainIsBehind);
          return intake(policy, consumerSource(consumer), budget);
        },
        view: laneView,
        metrics: shared.metrics,
        fairness: delivery.fairness,
        maxConcurrency: delivery.maxConcurrency,
        clock: shared.clock,
      },
      tuning.lanes,
    );
    const names = operationalJetStreamNames(settings);
    const operational = intake(
      operationalIntakePolicy(),
      consumerSource(await js.consumers.get(names.stream, names.consumer)),
    );
    return { js, main, lanes, operational };
  };
}

/** The intakes' bounds and pull sizes, from the configuration and the tuning. */
function intakeOptionsOf(
  { delivery, jetstream: settings }: DeliveryAppConfig,
  { intake, lanes }: EngineTuning,
): IntakeOptions {
  return {
    maxMessagesInFlight: Math.min(delivery.maxConcurrency, settings.maxAckPending),
    maxDeliveriesInFlight: delivery.maxConcurrency,
    maxFanningOut: intake.maxFanningOut,
    maxFanningOutPerTenant: intake.maxFanningOutPerTenant,
    // Alone as the lanes judge it (ADR 0032): nobody else's message for as long.
    runAheadAloneForMs: lanes.otherTenantWithinMs,
    tenantWindow: intake.tenantWindow,
    maxSlotWaitsPerTenant: intake.maxSlotWaitsPerTenant,
    yieldPollMs: intake.yieldPollMs,
    ackWaitMs: settings.ackWaitMs,
    pullBatch: intake.pullBatch,
    skipPullBatch: Math.max(
      intake.pullBatch,
      Math.min(intake.skipPullBatch, Math.floor(settings.maxAckPending / 2)),
    ),
    pullExpiresMs: intake.pullExpiresMs,
    retryFailedPullMs: intake.retryFailedPullMs,
  };
}
