export * from './data-source';
export * from './migrate';
export * from './migrations';
export * from './retention/partitions';
export * from './retention/partition-plan';
export * from './retention/partition-maintenance';
