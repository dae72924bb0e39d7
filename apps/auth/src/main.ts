import 'reflect-metadata';
import { runService } from '@svc/http';
import { createAuthApplication } from './auth-application';

void runService({
  name: 'auth',
  port: (config) => config.ports.auth,
  managementPort: (config) => config.managementPorts.auth,
  create: createAuthApplication,
});
