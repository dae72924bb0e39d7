import 'reflect-metadata';
import { loadConfig } from '@svc/config';
import { runService } from '@svc/http';
import { createDeliveryApplication } from './delivery-application';

void runService({
  name: 'delivery',
  // The whole configuration while DeliveryModule.forRoot and DeliveryEngine take AppConfig;
  // loadDeliveryConfig (the sections the engine reads, DeliveryAppConfig) once they take that.
  load: loadConfig,
  // The engine takes no traffic: its only port is its management port.
  managementPort: (config) => config.ports.delivery,
  create: createDeliveryApplication,
});
