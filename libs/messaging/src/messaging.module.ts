import { DynamicModule, Global, Module } from '@nestjs/common';
import { EndpointChangeNotifier } from './endpoint-change-notifier';
import { NATS_OPTIONS, NatsConnectionManager, NatsOptions } from './nats-connection';
import {
  CONSUMER_MONITOR_OPTIONS,
  ConsumerMonitorOptions,
  JetStreamConsumerMonitor,
} from './consumer-monitor';

@Global()
@Module({})
export class MessagingModule {
  /** `consumer`: also watch this durable consumer (readiness, pending and ack-pending metrics). */
  static forRoot(options: NatsOptions, consumer?: ConsumerMonitorOptions): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: NATS_OPTIONS, useValue: options },
        NatsConnectionManager,
        EndpointChangeNotifier,
        ...(consumer
          ? [{ provide: CONSUMER_MONITOR_OPTIONS, useValue: consumer }, JetStreamConsumerMonitor]
          : []),
      ],
      exports: [
        NatsConnectionManager,
        EndpointChangeNotifier,
        ...(consumer ? [JetStreamConsumerMonitor] : []),
      ],
    };
  }
}
