export * from './app-config';
export * from './apps';
export * from './config-error';
export * from './section';
export * from './settings';
