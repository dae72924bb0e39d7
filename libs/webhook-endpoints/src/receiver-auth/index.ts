export * from './receiver-auth';
export * from './check-receiver-auth';
export { checkClientCertificate, clientCertificateFacts } from './client-certificate';
export { refusedHeaderReason } from './refused-header-names';
export * from './seal-receiver-auth';
