export * from './receiver';
export * from './recent-ids';
export * from './jwks-key-source';
export * from './verify-delivery';
