import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import type { Logger } from 'pino';
import { ApiModule } from './api.module';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { OpenApiDocument } from './openapi/openapi.controller';

/** The registration API, assembled but not yet listening (main.ts and the tests listen). */
export async function createApiApplication(
  config: ApiConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  const app = await createHttpApplication(
    'api',
    (registry) => ApiModule.forRoot(config, registry),
    config,
    logger,
  );
  app.get(OpenApiDocument).value = buildOpenApiDocument(app);
  return app;
}
