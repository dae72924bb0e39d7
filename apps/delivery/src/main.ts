import 'reflect-metadata';
import { runService } from '@svc/http';
import { createDeliveryApplication } from './delivery-application';

void runService({
  name: 'delivery',
  port: (config) => config.ports.delivery,
  create: createDeliveryApplication,
});
