import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DeliveryAppConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import type { Logger } from 'pino';
import { DeliveryModule } from './delivery.module';

export function createDeliveryApplication(
  config: DeliveryAppConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  return createHttpApplication(
    'delivery',
    (registry) => DeliveryModule.forRoot(config, registry),
    config,
    logger,
  );
}
