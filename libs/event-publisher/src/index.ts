export * from './event-publisher';
export * from './new-event-envelope';
