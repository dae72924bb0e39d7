import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import type { Logger } from 'pino';
import { AuthModule } from './auth.module';

export function createAuthApplication(
  config: AppConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  return createHttpApplication(
    'auth',
    (registry) => AuthModule.forRoot(config, registry),
    config,
    logger,
  );
}
