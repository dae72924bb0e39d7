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
import {
  NatsConnectionManager,
  operationalJetStreamNames,
  provisionJetStream,
} from '@svc/messaging';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpSender } from './dispatch/http-sender';
import { ENGINE_TUNING } from './engine-tuning';
import { EndpointDirectory } from './fan-out/endpoint-directory';
import { EventIntake, EventIntakeFactory } from './intake/event-intake';
import { LaneManager } from './intake/lanes/lane-manager';
import { OperationalEventsRelay, publishToJetStream } from './operational-events/outbox-relay';
import { DeliveryRecorder } from './recording/delivery-recorder';
import { RecordingHealth } from './recording/recording-health';
import { RetentionKeeper } from './retention/retention-keeper';
import { RetryScheduler } from './retries/retry-scheduler';

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
  /** Operational events (`<root>.ops.>`) to the tenants' endpoints subscribed to them (ADR 0030). */
  private operationalIntake: EventIntake | undefined;
  private schedulerStarted = false;
  private notices: Subscription | undefined;
  private markReady!: () => void;
  /** Resolves once the engine consumes events (tests wait for it). */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly nats: NatsConnectionManager,
    private readonly subjects: SubjectScheme,
    private readonly directory: EndpointDirectory,
    private readonly recorder: DeliveryRecorder,
    private readonly sender: HttpSender,
    private readonly health: RecordingHealth,
    private readonly scheduler: RetryScheduler,
    private readonly intakeFactory: EventIntakeFactory,
    private readonly retention: RetentionKeeper,
    private readonly relay: OperationalEventsRelay,
    private readonly lanes: LaneManager,
  ) {
    recorder.onEndpointStatusChanged(({ tenantId, endpointId }) =>
      this.announceEndpointChange(tenantId, endpointId),
    );
  }

  onApplicationBootstrap(): void {
    this.starting = this.startWhenPossible();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    // Work waiting for the database gives up at once: unstarted, it goes back unharmed.
    this.health.stop();
    await this.starting;
    // Every source of work stops taking it at once, then all wait for their attempts together.
    // One after the other, the scheduler went on claiming retries while the intake waited for a
    // hanging endpoint, and each source's wait came on top of the last (14 to 20 s to stop with a
    // 10 s timeout).
    await Promise.all([
      this.intake?.stop(),
      this.lanes.stop(),
      this.operationalIntake?.stop(),
      this.schedulerStarted ? this.scheduler.stop() : undefined,
    ]);
    await this.recorder.drain();
    // After the drain, so that what the last records raised is published by this engine.
    await this.relay.stop();
    await this.retention.stop();
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
        await sleep(ENGINE_TUNING.startRetryMs, undefined, { signal: this.stopping.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  private async start(connection: NatsConnection): Promise<void> {
    // The partitions this engine's records go to exist before it takes any work (ADR 0023).
    await this.retention.start();
    const settings = this.config.jetstream;
    const summary = await provisionJetStream(connection, settings);
    this.logger.log(`JetStream ready: ${JSON.stringify(summary)}`);
    this.followEndpointChanges(connection);
    const js = jetstream(connection);
    const consumer = await js.consumers.get(settings.eventsStream, settings.consumer);
    // The main intake acknowledges, unhandled, what a hot tenant's lane covers (ADR 0032).
    this.intake = this.intakeFactory.create(consumer, js, {
      coveredByLane: this.lanes.coveredByLane,
      pullsPast: this.lanes.pullsPast,
      putBackMs: this.lanes.mainPutsBackMs,
    });
    if (this.stopping.signal.aborted) {
      return;
    }
    await this.lanes.start(connection, js, this.intake);
    await this.intake.start();
    const operational = operationalJetStreamNames(settings);
    this.operationalIntake = this.intakeFactory.create(
      await js.consumers.get(operational.stream, operational.consumer),
      js,
      { source: 'operational' },
    );
    await this.operationalIntake.start();
    this.relay.start(publishToJetStream(js, this.subjects));
    this.scheduler.start();
    this.schedulerStarted = true;
    this.markReady();
    this.logger.log('consuming events');
  }

  /**
   * A status this engine recorded (a 410 disables the endpoint) reaches its own directory at once
   * and the others' through the notice the API also sends; without NATS, their cache expiry
   * bounds how long they keep sending.
   */
  private announceEndpointChange(tenantId: string, endpointId: string): void {
    this.directory.invalidate(tenantId);
    try {
      this.nats.current.publish(
        this.subjects.endpointChanged,
        JSON.stringify({ tenant_id: tenantId, endpoint_id: endpointId }),
      );
    } catch (error) {
      this.logger.warn(
        `could not announce the status change of ${endpointId}: ${(error as Error).message}`,
      );
    }
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
          // A change may have made deliveries due now (a test event, a replay, a re-drive):
          // claiming at once beats waiting out the scheduler's interval (ADR 0029).
          this.scheduler.wake();
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
