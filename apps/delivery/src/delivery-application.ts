import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import type { Logger } from 'pino';
import { DeliveryModule } from './delivery.module';

export function createDeliveryApplication(
  config: AppConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  return createHttpApplication(
    'delivery',
    (registry) => DeliveryModule.forRoot(config, registry),
    config,
    logger,
  );
}
