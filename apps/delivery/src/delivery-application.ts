import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import { createMetricsRegistry } from '@svc/observability';
import type { Logger } from 'pino';
import { DeliveryModule } from './delivery.module';

export async function createDeliveryApplication(
  config: AppConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  const registry = createMetricsRegistry('delivery');
  return createHttpApplication(DeliveryModule.forRoot(config, registry), {
    logger,
    registry,
    bodyLimitBytes: config.http.bodyLimitBytes,
  });
}
