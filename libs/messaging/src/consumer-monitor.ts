import { Inject, Injectable } from '@nestjs/common';
import { jetstreamManager, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { withTimeout, ReadinessCheck } from '@svc/http';
import { Gauge, Registry } from 'prom-client';
import { NatsConnectionManager } from './nats-connection';

export const CONSUMER_MONITOR_OPTIONS = Symbol('CONSUMER_MONITOR_OPTIONS');

export interface ConsumerMonitorOptions {
  stream: string;
  consumer: string;
  registry: Registry;
}

/**
 * The delivery engine's durable JetStream consumer, seen from outside: a readiness check (the
 * consumer and its stream exist and JetStream answers for both) and, at each scrape, its backlog
 * as JetStream counts it: messages not yet delivered (`num_pending`), delivered and not yet
 * acknowledged (`num_ack_pending`) and redelivered. Consumer lag alerts read these (docs/runbooks).
 */
@Injectable()
export class JetStreamConsumerMonitor implements ReadinessCheck {
  readonly name = 'jetstream-consumer';
  private manager: { connection: NatsConnection; jsm: JetStreamManager } | undefined;

  constructor(
    private readonly nats: NatsConnectionManager,
    @Inject(CONSUMER_MONITOR_OPTIONS) private readonly options: ConsumerMonitorOptions,
  ) {
    const labels = { stream: options.stream, consumer: options.consumer };
    const gauge = (
      name: string,
      help: string,
      field: 'num_pending' | 'num_ack_pending' | 'num_redelivered',
    ) => {
      const metric: Gauge = new Gauge({
        name,
        help,
        labelNames: ['stream', 'consumer'],
        registers: [options.registry],
        collect: async () => {
          const info = await this.info().catch(() => undefined);
          if (info) metric.set(labels, info[field]);
        },
      });
      return metric;
    };
    gauge(
      'svc_delivery_consumer_pending_messages',
      'Messages of the events stream the delivery consumer has not yet received (JetStream num_pending).',
      'num_pending',
    );
    gauge(
      'svc_delivery_consumer_ack_pending_messages',
      'Messages the delivery consumer received and has not yet acknowledged (JetStream num_ack_pending).',
      'num_ack_pending',
    );
    gauge(
      'svc_delivery_consumer_redelivered_messages',
      'Messages delivered more than once and not yet acknowledged (JetStream num_redelivered).',
      'num_redelivered',
    );
  }

  /**
   * The consumer and its stream both answer. In a cluster each has a leader of its own: one that
   * survived the loss of the quorum goes on answering for a while (until its group notices, 10 s
   * or more), so a lost quorum shows as soon as either leader is gone; and a stream without a
   * leader takes no event.
   */
  async check(): Promise<void> {
    await Promise.all([
      this.info(),
      withTimeout(
        this.jsm().then((jsm) => jsm.streams.info(this.options.stream)),
        2000,
        `JetStream stream ${this.options.stream}`,
      ),
    ]);
  }

  private async info(): Promise<ConsumerInfo> {
    return withTimeout(
      this.jsm().then((jsm) => jsm.consumers.info(this.options.stream, this.options.consumer)),
      2000,
      `JetStream consumer ${this.options.consumer}`,
    );
  }

  private async jsm(): Promise<JetStreamManager> {
    const connection = this.nats.current;
    if (this.manager?.connection !== connection) {
      this.manager = { connection, jsm: await jetstreamManager(connection) };
    }
    return this.manager.jsm;
  }
}
