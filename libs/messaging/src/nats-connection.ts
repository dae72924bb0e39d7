import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { withTimeout, ReadinessCheck } from '@svc/http';
import { setTimeout as sleep } from 'node:timers/promises';

export const NATS_OPTIONS = Symbol('NATS_OPTIONS');

export interface NatsOptions {
  servers: string[];
  /** Shows in the server's connection list, so operators can tell the apps apart. */
  name: string;
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

  constructor(@Inject(NATS_OPTIONS) private readonly options: NatsOptions) {
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

  private async connectUntilStopped(): Promise<void> {
    while (!this.stopped) {
      try {
        const connection = await connect({
          servers: this.options.servers,
          name: this.options.name,
          maxReconnectAttempts: -1,
        });
        this.connection = connection;
        this.logger.log(`connected to ${connection.getServer()}`);
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
