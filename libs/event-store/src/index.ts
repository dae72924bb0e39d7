export * from './event-store';
export * from './stored-event.entity';
export * from './statement-parameters';
export * from './prepared-query';
export * from './connection-pool';
