export * from './signature';
export * from './standard-webhooks';
