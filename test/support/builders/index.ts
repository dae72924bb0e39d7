export * from './delivery-builders';
export * from './endpoint-builders';
export * from './given-events';
