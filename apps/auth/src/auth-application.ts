import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import { createMetricsRegistry } from '@svc/observability';
import type { Logger } from 'pino';
import { AuthModule } from './auth.module';

export async function createAuthApplication(
  config: AppConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  const registry = createMetricsRegistry('auth');
  return createHttpApplication(AuthModule.forRoot(config, registry), {
    logger,
    registry,
    bodyLimitBytes: config.http.bodyLimitBytes,
  });
}
