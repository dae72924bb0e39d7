export * from './delivery-headers';
export * from './envelope-validation';
export * from './event-envelope';
export * from './event-types';
export * from './ids';
export * from './scopes';
export * from './subjects';
export * from './retention';
