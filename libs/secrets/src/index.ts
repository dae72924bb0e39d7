export * from './secret-cipher';
