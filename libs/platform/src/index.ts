export * from './config.module';
export * from './database.module';
export * from './platform.module';
export * from './database-pool-metrics';
