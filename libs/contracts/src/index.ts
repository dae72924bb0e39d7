export * from './event-types';
export * from './ids';
export * from './scopes';
