export * from './messaging.module';
export * from './nats-connection';
