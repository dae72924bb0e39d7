export * from './jetstream-provisioning';
export * from './messaging.module';
export * from './nats-connection';
export * from './endpoint-change-notifier';
