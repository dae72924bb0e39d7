export * from './clients/oauth-client.entity';
export * from './clients/oauth-clients.service';
export * from './rules/pkce';
export * from './rules/redirect-uri';
export * from './rules/scope-grant';
export * from './users/password-hashing';
export * from './users/user.entity';
export * from './users/users.service';
