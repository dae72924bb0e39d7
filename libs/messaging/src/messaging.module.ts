import { DynamicModule, Global, Module } from '@nestjs/common';
import { EndpointChangeNotifier } from './endpoint-change-notifier';
import { NATS_OPTIONS, NatsConnectionManager, NatsOptions } from './nats-connection';

@Global()
@Module({})
export class MessagingModule {
  static forRoot(options: NatsOptions): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: NATS_OPTIONS, useValue: options },
        NatsConnectionManager,
        EndpointChangeNotifier,
      ],
      exports: [NatsConnectionManager, EndpointChangeNotifier],
    };
  }
}
