export * from './signature';
export * from './standard-webhooks';
export * from './ed25519-signature';
