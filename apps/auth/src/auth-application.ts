import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AuthAppConfig } from '@svc/config';
import { createHttpApplication } from '@svc/http';
import type { Logger } from 'pino';
import { AuthModule } from './auth.module';
import { registerThemeStylesheet } from './browser/theme-stylesheet';
import { consoleCorsOrigin, registerConsoleCors } from './console/console-cors';

/** Internal: what the tests may change beside the configuration. */
export interface AuthApplicationOptions {
  /** Where the pages' stylesheet may be, first found wins (default: the console's theme.css). */
  themeStylesheet?: string[];
}

/**
 * The auth app also reads HTML forms and the token endpoint's form bodies
 * (application/x-www-form-urlencoded) and cookies, which the other apps refuse. It serves the
 * console's stylesheet to its pages, and answers the console's cross-origin token calls.
 */
export async function createAuthApplication(
  config: AuthAppConfig,
  logger: Logger,
  options: AuthApplicationOptions = {},
): Promise<NestFastifyApplication> {
  const app = await createHttpApplication(
    'auth',
    (registry) => AuthModule.forRoot(config, registry),
    config,
    logger,
  );
  await app.register(fastifyFormbody);
  await app.register(fastifyCookie);
  const fastify = app.getHttpAdapter().getInstance();
  // Any other body type reaches the OAuth endpoints, which answer it in RFC 6749 5.2 terms
  // (invalid_request) rather than with a 415 a client library would not understand.
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null));
  registerConsoleCors(fastify, consoleCorsOrigin(config.console.url, config.auth.issuer));
  await registerThemeStylesheet(app, options.themeStylesheet);
  return app;
}
