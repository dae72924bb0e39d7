import 'reflect-metadata';
import { runService } from '@svc/http';
import { createApiApplication } from './api-application';

void runService({
  name: 'api',
  port: (config) => config.ports.api,
  managementPort: (config) => config.managementPorts.api,
  create: createApiApplication,
});
