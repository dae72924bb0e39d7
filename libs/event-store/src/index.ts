export * from './event-store';
export * from './stored-event.entity';
