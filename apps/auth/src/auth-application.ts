import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import type { Logger } from 'pino';
import { AuthModule } from './auth.module';

/**
 * The auth app also reads HTML forms and the token endpoint's form bodies
 * (application/x-www-form-urlencoded) and cookies, which the other apps refuse.
 */
export async function createAuthApplication(
  config: AppConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  const app = await createHttpApplication(
    'auth',
    (registry) => AuthModule.forRoot(config, registry),
    config,
    logger,
  );
  await app.register(fastifyFormbody);
  await app.register(fastifyCookie);
  return app;
}
