export * from './data-source';
export * from './database.module';
export * from './migrate';
export * from './migrations';
