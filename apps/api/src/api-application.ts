import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import type { Logger } from 'pino';
import { ApiModule } from './api.module';
import { registerClientAddresses } from './audit/command-context';
import { ConsoleHostingOptions, registerConsoleHosting } from './console-hosting/console-hosting';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { OpenApiDocument } from './openapi/openapi.controller';

/** Internal: what the tests may change beside the configuration. */
export interface ApiApplicationOptions {
  /** The console's files: dist/console unless a test serves a fixture folder of its own. */
  console?: ConsoleHostingOptions;
}

/** The registration API, assembled but not yet listening (main.ts and the tests listen). */
export async function createApiApplication(
  config: ApiConfig,
  logger: Logger,
  options: ApiApplicationOptions = {},
): Promise<NestFastifyApplication> {
  const app = await createHttpApplication(
    'api',
    (registry) => ApiModule.forRoot(config, registry),
    config,
    logger,
  );
  registerClientAddresses(app, config.apiClients.trustedProxies);
  app.get(OpenApiDocument).value = buildOpenApiDocument(app);
  // The tenant console (ADR 0042), on the same public port and origin as /v1.
  await registerConsoleHosting(app, config, logger, options.console);
  return app;
}
