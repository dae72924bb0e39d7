export * from './delivery-builders';
export * from './endpoint-builders';
