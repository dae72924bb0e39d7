import 'reflect-metadata';
import { loadApiConfig } from '@svc/config';
import { runService } from '@svc/http';
import { createApiApplication } from './api-application';

void runService({
  name: 'api',
  load: loadApiConfig,
  port: (config) => config.ports.api,
  managementPort: (config) => config.managementPorts.api,
  create: createApiApplication,
});
