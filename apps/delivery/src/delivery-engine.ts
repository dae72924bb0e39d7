import { Logger } from '@nestjs/common';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import type { DeliveryAppConfig } from '@svc/config';
import type { SubjectScheme } from '@svc/contracts';
import { NatsConnectionManager, provisionJetStream } from '@svc/messaging';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpSender } from './dispatch/http-sender';
import type { SigningKeyring } from './dispatch/signing-keyring';
import type { EndpointDirectory } from './fan-out/endpoint-directory';
import type { EventIntake } from './intake/event-intake';
import type { LaneManager } from './intake/lanes/lane-manager';
import { OperationalEventsRelay, publishToJetStream } from './operational-events/outbox-relay';
import type { DeliveryRecorder } from './recording/delivery-recorder';
import type { RecordingHealth } from './recording/recording-health';
import type { RetentionKeeper } from './retention/retention-keeper';
import type { RetryScheduler } from './retries/retry-scheduler';

/** The engine's parts that exist before NATS is reachable (engine.ts builds them). */
export interface EngineParts {
  settings: DeliveryAppConfig['jetstream'];
  nats: NatsConnectionManager;
  subjects: SubjectScheme;
  directory: EndpointDirectory;
  recorder: DeliveryRecorder;
  sender: HttpSender;
  health: RecordingHealth;
  scheduler: RetryScheduler;
  retention: RetentionKeeper;
  relay: OperationalEventsRelay;
  /** The Ed25519 keys, loaded before any work is taken (ADR 0044). */
  keyring: SigningKeyring;
  /** Between tries to start while NATS is not there. */
  startRetryMs: number;
}

/** The parts built on a JetStream connection (engine.ts). */
export interface JetStreamWiring {
  js: JetStreamClient;
  main: EventIntake;
  lanes: LaneManager;
  /** Operational events (`<root>.ops.>`) to the tenants' endpoints subscribed to them (ADR 0030). */
  operational: EventIntake;
}

/**
 * Runs the engine for the app's lifetime: once NATS is reachable it provisions the JetStream
 * objects, follows endpoint-change notices, and starts intake and the retry scheduler. On
 * shutdown (SIGTERM) it stops taking work, lets attempts in flight finish within their timeout,
 * and flushes every record before the connections close.
 */
export class DeliveryEngine {
  private readonly logger = new Logger('DeliveryEngine');
  private readonly stopping = new AbortController();
  private starting: Promise<void> | undefined;
  private wired: JetStreamWiring | undefined;
  private schedulerStarted = false;
  private notices: Subscription | undefined;
  private markReady!: () => void;
  /** Resolves once the engine consumes events (tests wait for it). */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));
  private consuming = false;
  /** Why the last try to start failed (a refusal of the configuration, JetStream away...). */
  private startError: string | undefined;

  constructor(
    private readonly parts: EngineParts,
    private readonly wireJetStream: (connection: NatsConnection) => Promise<JetStreamWiring>,
  ) {
    parts.recorder.onEndpointStatusChanged(({ tenantId, endpointId }) =>
      this.announceEndpointChange(tenantId, endpointId),
    );
  }

  start(): void {
    this.starting = this.startWhenPossible();
  }

  async stop(): Promise<void> {
    const { health, scheduler, recorder, relay, retention, sender } = this.parts;
    this.stopping.abort();
    // Work waiting for the database gives up at once: unstarted, it goes back unharmed.
    health.stop();
    await this.starting;
    // Every source of work stops taking it at once, then all wait for their attempts together.
    // One after the other, the scheduler went on claiming retries while the intake waited for a
    // hanging endpoint, and each source's wait came on top of the last (14 to 20 s to stop with a
    // 10 s timeout).
    await Promise.all([
      this.wired?.main.stop(),
      this.wired?.lanes.stop(),
      this.wired?.operational.stop(),
      this.schedulerStarted ? scheduler.stop() : undefined,
    ]);
    await recorder.drain();
    // After the drain, so that what the last records raised is published by this engine.
    await relay.stop();
    await retention.stop();
    this.parts.keyring.stop();
    this.notices?.unsubscribe();
    await sender.close();
    this.logger.log('stopped: in-flight attempts finished and recorded');
  }

  private async startWhenPossible(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        const connection = await Promise.race([
          this.parts.nats.connected(),
          aborted(this.stopping.signal),
        ]);
        if (!connection) {
          return;
        }
        await this.startOn(connection);
        return;
      } catch (error) {
        this.startError = (error as Error).message;
        this.logger.warn(`cannot start yet (${this.startError}); retrying`);
        await sleep(this.parts.startRetryMs, undefined, { signal: this.stopping.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  private async startOn(connection: NatsConnection): Promise<void> {
    const { retention, settings, relay, scheduler, subjects, keyring } = this.parts;
    // The partitions this engine's records go to exist before it takes any work (ADR 0023).
    await retention.start();
    // So do the signing keys: an ed25519 endpoint's first delivery is signed (ADR 0044).
    await keyring.start();
    const summary = await provisionJetStream(connection, settings);
    this.logger.log(`JetStream ready: ${JSON.stringify(summary)}`);
    this.followEndpointChanges(connection);
    const wired = await this.wireJetStream(connection);
    if (this.stopping.signal.aborted) {
      return;
    }
    this.wired = wired;
    // The main intake acknowledges, unhandled, what a hot tenant's lane covers (ADR 0032).
    await wired.lanes.start(wired.main);
    await wired.main.start();
    await wired.operational.start();
    relay.start(publishToJetStream(wired.js, subjects));
    scheduler.start();
    this.schedulerStarted = true;
    this.consuming = true;
    this.markReady();
    this.logger.log('consuming events');
  }

  /**
   * Readiness: an engine that has not started takes no work, whatever its connections say (the
   * consumer another engine made answers for it too): it says why not.
   */
  checkStarted(): Promise<void> {
    return this.consuming
      ? Promise.resolve()
      : Promise.reject(new Error(`not consuming yet: ${this.startError ?? 'starting'}`));
  }

  /**
   * A status this engine recorded (a 410 disables the endpoint) reaches its own directory at once
   * and the others' through the notice the API also sends; without NATS, their cache expiry
   * bounds how long they keep sending.
   */
  private announceEndpointChange(tenantId: string, endpointId: string): void {
    this.parts.directory.invalidate(tenantId);
    try {
      this.parts.nats.current.publish(
        this.parts.subjects.endpointChanged,
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
    this.notices = connection.subscribe(this.parts.subjects.endpointChanged, {
      callback: (error, message) => {
        if (error) {
          return;
        }
        try {
          const { tenant_id } = message.json<{ tenant_id?: unknown }>();
          if (typeof tenant_id === 'string') {
            this.parts.directory.invalidate(tenant_id);
          }
          // A change may have made deliveries due now (a test event, a replay, a re-drive):
          // claiming at once beats waiting out the scheduler's interval (ADR 0029).
          this.parts.scheduler.wake();
        } catch {
          this.logger.warn('ignored an endpoint-change notice that is not JSON');
        }
      },
    });
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === 'reconnect') {
          // Notices sent while disconnected are lost: trust nothing cached before.
          this.parts.directory.invalidateAll();
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
