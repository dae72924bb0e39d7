import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { NatsSettings } from '@svc/config';
import { withTimeout, ReadinessCheck } from '@svc/http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Counter, Gauge, Registry } from 'prom-client';
import { natsAuthDescription, natsConnectOptions } from './nats-connect-options';

export const NATS_OPTIONS = Symbol('NATS_OPTIONS');

export interface NatsOptions {
  /** Servers, authentication and TLS (NATS_URL, NATS_CREDS_FILE, ..., NATS_TLS_CA_FILE). */
  settings: NatsSettings;
  /** Shows in the server's connection list, so operators can tell the apps apart. */
  name: string;
  /** Where svc_nats_connected and svc_nats_reconnects_total go (none: not counted). */
  registry?: Registry;
}

const RETRY_DELAY_MS = 2000;

/**
 * Owns the app's NATS connection. It connects in the background and keeps trying, so an app
 * starts while NATS is away and reports not-ready until it arrives; once connected the client
 * reconnects by itself.
 */
@Injectable()
export class NatsConnectionManager implements OnApplicationShutdown, ReadinessCheck {
  readonly name = 'nats';
  private readonly logger = new Logger('Nats');
  private connection: NatsConnection | undefined;
  private stopped = false;
  private readonly stopping = new AbortController();
  private readonly connecting: Promise<void>;

  private readonly connectedGauge: Gauge | undefined;
  private readonly reconnects: Counter | undefined;
  private readonly disconnects: Counter | undefined;

  constructor(@Inject(NATS_OPTIONS) private readonly options: NatsOptions) {
    if (options.registry) {
      this.connectedGauge = new Gauge({
        name: 'svc_nats_connected',
        help: '1 while the app holds a connection to NATS, 0 while it has none (starting, or reconnecting).',
        registers: [options.registry],
      });
      this.connectedGauge.set(0);
      this.reconnects = new Counter({
        name: 'svc_nats_reconnects_total',
        help: 'Times the NATS connection was re-established after it was lost.',
        registers: [options.registry],
      });
      this.disconnects = new Counter({
        name: 'svc_nats_disconnects_total',
        help: 'Times the NATS connection was lost.',
        registers: [options.registry],
      });
    }
    this.connecting = this.connectUntilStopped();
  }

  /** Resolves with the connection once there is one (it may take a while if NATS is away). */
  async connected(): Promise<NatsConnection> {
    await this.connecting;
    return this.current;
  }

  /** The live connection; throws while there is none yet. */
  get current(): NatsConnection {
    if (!this.connection || this.connection.isClosed()) {
      throw new Error('not connected to NATS');
    }
    return this.connection;
  }

  async check(): Promise<void> {
    await withTimeout(this.current.flush(), 2000, 'NATS');
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.connecting;
    if (this.connection && !this.connection.isClosed()) {
      await this.connection.drain().catch(() => this.connection?.close());
    }
  }

  private async followStatus(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') {
        this.connectedGauge?.set(0);
        this.disconnects?.inc();
        this.logger.warn('lost the connection to NATS; reconnecting');
      } else if (status.type === 'reconnect') {
        this.connectedGauge?.set(1);
        this.reconnects?.inc();
        this.logger.log(`reconnected to ${connection.getServer()}`);
      }
    }
    this.connectedGauge?.set(0);
  }

  private async connectUntilStopped(): Promise<void> {
    while (!this.stopped) {
      try {
        const connection = await connect(
          natsConnectOptions(this.options.settings, this.options.name, {
            maxReconnectAttempts: -1,
          }),
        );
        this.connection = connection;
        this.connectedGauge?.set(1);
        void this.followStatus(connection);
        this.logger.log(
          `connected to ${connection.getServer()} (${natsAuthDescription(this.options.settings)})`,
        );
        return;
      } catch (error) {
        this.logger.warn(`cannot reach NATS yet (${(error as Error).message}); retrying`);
        await sleep(RETRY_DELAY_MS, undefined, { signal: this.stopping.signal }).catch(
          () => undefined,
        );
      }
    }
  }
}
