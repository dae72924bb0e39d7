export * from './receiver';
export * from './recent-ids';
