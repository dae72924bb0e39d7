export * from './endpoint-events';
export * from './endpoint-decisions';
export * from './endpoint-state';
export * from './projection/endpoint-projection';
export * from './projection/webhook-endpoint.entity';
export * from './rules/endpoint-fields';
export * from './rules/endpoint-url';
export * from './rules/rule-violation';
