export * from './signing-key-store';
