export * from './api-harness';
export * from './app-harness';
export * from './http-client';
export * from './test-database';
export * from './test-environment';
export * from './oauth-harness';
export * from './headless-chromium';
export * from './free-port';
