export * from './jetstream-provisioning';
export * from './messaging.module';
export * from './nats-connection';
export * from './nats-connect-options';
export * from './endpoint-change-notifier';
export * from './consumer-monitor';
