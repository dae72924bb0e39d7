export * from './local-ca';
export * from './local-stack-file';
