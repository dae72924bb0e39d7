import 'reflect-metadata';
import { runService } from '@svc/http';
import { createDeliveryApplication } from './delivery-application';

void runService({
  name: 'delivery',
  // The engine takes no traffic: its only port is its management port.
  managementPort: (config) => config.ports.delivery,
  create: createDeliveryApplication,
});
