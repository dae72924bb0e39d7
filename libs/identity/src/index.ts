export * from './api-keys/api-key-format';
export * from './api-keys/api-key.entity';
export * from './api-keys/api-keys.service';
export * from './principal';
export * from './access-tokens/access-token-verifier';
export * from './access-tokens/grant-revocations';
