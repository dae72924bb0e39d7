import 'reflect-metadata';
import { loadAuthConfig } from '@svc/config';
import { runService } from '@svc/http';
import { createAuthApplication } from './auth-application';

void runService({
  name: 'auth',
  load: loadAuthConfig,
  port: (config) => config.ports.auth,
  managementPort: (config) => config.managementPorts.auth,
  create: createAuthApplication,
});
