export * from './delivery-events';
export * from './delivery-decisions';
export * from './delivery-state';
export * from './rules/attempt-result';
export * from './rules/endpoint-status';
export * from './rules/retry-schedule';
export * from './projection/delivery-projection';
export * from './projection/delivery-projection-tables';
