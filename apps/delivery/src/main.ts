import 'reflect-metadata';
import { loadDeliveryConfig } from '@svc/config';
import { runService } from '@svc/http';
import { createDeliveryApplication } from './delivery-application';

void runService({
  name: 'delivery',
  // Only the sections the engine reads: another app's bad setting does not stop it.
  load: loadDeliveryConfig,
  // The engine takes no traffic: its only port is its management port.
  managementPort: (config) => config.ports.delivery,
  create: createDeliveryApplication,
});
