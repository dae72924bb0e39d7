import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AuthAppConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import type { Logger } from 'pino';
import { AuthModule } from './auth.module';

/**
 * The auth app also reads HTML forms and the token endpoint's form bodies
 * (application/x-www-form-urlencoded) and cookies, which the other apps refuse.
 */
export async function createAuthApplication(
  config: AuthAppConfig,
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
  // Any other body type reaches the OAuth endpoints, which answer it in RFC 6749 5.2 terms
  // (invalid_request) rather than with a 415 a client library would not understand.
  app
    .getHttpAdapter()
    .getInstance()
    .addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null));
  return app;
}
