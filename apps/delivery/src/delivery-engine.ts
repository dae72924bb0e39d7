import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { APP_CONFIG, AppConfig } from '@svc/config';
import { SubjectScheme } from '@svc/contracts';
import { NatsConnectionManager, provisionJetStream } from '@svc/messaging';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { DeliveryMetrics } from './delivery-metrics';
import { AttemptRunner } from './dispatch/attempt-runner';
import { ConcurrencyLimits } from './dispatch/concurrency-limits';
import { HttpSender } from './dispatch/http-sender';
import { EndpointDirectory } from './fan-out/endpoint-directory';
import { DeadLetterPark } from './intake/dead-letter';
import { EventIntake } from './intake/event-intake';
import { DeliveryRecorder } from './recording/delivery-recorder';
import { RecordingHealth } from './recording/recording-health';
import { RetryScheduler } from './retries/retry-scheduler';

const RETRY_START_MS = 2000;
/**
 * A claimed attempt must be made and recorded within the delivery timeout plus this; a crashed
 * engine's claims come back after it. Too short risks a second POST (at least once allows it;
 * the record of the slower one is dropped), too long delays retries after a crash.
 */
const CLAIM_MARGIN_MS = 5000;
/** A delivery meeting its endpoint at its concurrency limit is tried again this much later. */
const BUSY_ENDPOINT_DELAY_MS = 250;

/**
 * Runs the engine for the app's lifetime: once NATS is reachable it provisions the JetStream
 * objects, follows endpoint-change notices, and starts intake and the retry scheduler. On
 * shutdown (SIGTERM) it stops taking work, lets attempts in flight finish within their timeout,
 * and flushes every record before the connections close.
 */
@Injectable()
export class DeliveryEngine implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DeliveryEngine');
  private readonly stopping = new AbortController();
  private starting: Promise<void> | undefined;
  private intake: EventIntake | undefined;
  private scheduler: RetryScheduler | undefined;
  private notices: Subscription | undefined;
  private markReady!: () => void;
  /** Resolves once the engine consumes events (tests wait for it). */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly nats: NatsConnectionManager,
    private readonly dataSource: DataSource,
    private readonly subjects: SubjectScheme,
    private readonly directory: EndpointDirectory,
    private readonly runner: AttemptRunner,
    private readonly recorder: DeliveryRecorder,
    private readonly limits: ConcurrencyLimits,
    private readonly sender: HttpSender,
    private readonly metrics: DeliveryMetrics,
    private readonly health: RecordingHealth,
  ) {}

  onApplicationBootstrap(): void {
    this.starting = this.startWhenPossible();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    // Work waiting for the database gives up at once: unstarted, it goes back unharmed.
    this.health.stop();
    await this.starting;
    await this.intake?.stop();
    await this.scheduler?.stop();
    await this.recorder.drain();
    this.notices?.unsubscribe();
    await this.sender.close();
    this.logger.log('stopped: in-flight attempts finished and recorded');
  }

  private async startWhenPossible(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        const connection = await Promise.race([
          this.nats.connected(),
          aborted(this.stopping.signal),
        ]);
        if (!connection) {
          return;
        }
        await this.start(connection);
        return;
      } catch (error) {
        this.logger.warn(`cannot start yet (${(error as Error).message}); retrying`);
        await sleep(RETRY_START_MS, undefined, { signal: this.stopping.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  private async start(connection: NatsConnection): Promise<void> {
    const { jetstream: settings, delivery } = this.config;
    const summary = await provisionJetStream(connection, settings);
    this.logger.log(`JetStream ready: ${JSON.stringify(summary)}`);
    this.followEndpointChanges(connection);
    const js = jetstream(connection);
    const consumer = await js.consumers.get(settings.eventsStream, settings.consumer);
    this.intake = new EventIntake(
      {
        consumer,
        subjects: this.subjects,
        directory: this.directory,
        runner: this.runner,
        recorder: this.recorder,
        limits: this.limits,
        deadLetter: new DeadLetterPark(js, this.subjects, this.dataSource, this.metrics),
        metrics: this.metrics,
        dataSource: this.dataSource,
        health: this.health,
      },
      {
        maxMessagesInFlight: Math.min(delivery.maxConcurrency, settings.maxAckPending),
        maxDeliveriesInFlight: delivery.maxConcurrency,
        busyEndpointDelayMs: BUSY_ENDPOINT_DELAY_MS,
        retryFailedMessageMs: 5000,
        ackWaitMs: settings.ackWaitMs,
      },
    );
    this.scheduler = new RetryScheduler(
      {
        dataSource: this.dataSource,
        directory: this.directory,
        runner: this.runner,
        recorder: this.recorder,
        limits: this.limits,
        metrics: this.metrics,
        health: this.health,
      },
      {
        intervalMs: delivery.schedulerIntervalMs,
        leaseMs: delivery.timeoutMs + CLAIM_MARGIN_MS,
        batchSize: 100,
        busyEndpointDelayMs: BUSY_ENDPOINT_DELAY_MS,
        globalMax: delivery.maxConcurrency,
      },
    );
    if (this.stopping.signal.aborted) {
      return;
    }
    await this.intake.start();
    this.scheduler.start();
    this.markReady();
    this.logger.log('consuming events');
  }

  /** The API announces endpoint changes; a notice drops the tenant's cached endpoints at once. */
  private followEndpointChanges(connection: NatsConnection): void {
    this.notices = connection.subscribe(this.subjects.endpointChanged, {
      callback: (error, message) => {
        if (error) {
          return;
        }
        try {
          const { tenant_id } = message.json<{ tenant_id?: unknown }>();
          if (typeof tenant_id === 'string') {
            this.directory.invalidate(tenant_id);
          }
        } catch {
          this.logger.warn('ignored an endpoint-change notice that is not JSON');
        }
      },
    });
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === 'reconnect') {
          // Notices sent while disconnected are lost: trust nothing cached before.
          this.directory.invalidateAll();
        }
      }
    })();
  }
}

function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(undefined), { once: true }),
  );
}
