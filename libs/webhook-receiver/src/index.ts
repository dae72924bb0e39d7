export * from './receiver';
export * from './recent-ids';
export * from './jwks-key-source';
export * from './verify-delivery';
export * from './sequence-header';
export * from './sequence-gaps';
export * from './gap-window';
