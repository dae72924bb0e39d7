import fastifyStatic from '@fastify/static';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CONSOLE_CLIENT, consoleRedirectUri } from '@svc/contracts';
import { ApiConfig } from '@svc/config';
import {
  builtConsoleDirectory,
  PROBLEM_CONTENT_TYPE,
  PROBLEM_TYPES,
  ProblemDetails,
} from '@svc/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  cacheControlFor,
  consoleRelativePath,
  HASHED_ASSETS_FOLDER,
  isConsoleFile,
} from './console-files';
import { consoleSecurityHeaders } from './console-security-headers';

export const CONSOLE_PREFIX = '/console/';

export interface ConsoleHostingOptions {
  /** Where the built console is; dist/console by default (tests serve a fixture folder). */
  directory?: string;
}

/** What the console reads at load to sign users in (ADR 0042): public values only. */
export function consoleClientConfig(config: Pick<ApiConfig, 'auth' | 'console'>) {
  return {
    issuer: config.auth.issuer,
    client_id: CONSOLE_CLIENT.id,
    redirect_uri: consoleRedirectUri(config.console.url),
    scope: CONSOLE_CLIENT.scopes.join(' '),
  };
}

const problems = {
  notBuilt: {
    type: PROBLEM_TYPES.unavailable,
    title: 'The console is not built',
    status: 503,
    detail:
      'This API has no built console to serve (dist/console/index.html is missing); `npm run build` builds it.',
  },
  notFound: {
    type: PROBLEM_TYPES.notFound,
    title: 'Not found',
    status: 404,
    detail: 'The console has no such file.',
  },
  internal: {
    type: PROBLEM_TYPES.internal,
    title: 'Internal server error',
    status: 500,
    detail: 'The console could not be served.',
  },
} satisfies Record<string, ProblemDetails>;

function sendProblem(reply: FastifyReply, problem: ProblemDetails): FastifyReply {
  return reply
    .code(problem.status)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .header('cache-control', 'no-store')
    .send(problem);
}

/**
 * Serves the console at /console/ on the API's public port (ADR 0042): its built files, the
 * SPA's fallback to index.html for its own paths, and config.json.
 *
 * The routes are Fastify's, not Nest controllers: they are public files, so the Bearer guard,
 * the validation pipe and the OpenAPI document have nothing to do with them, and registering
 * them beside Nest's router keeps them out of all three by construction rather than by an
 * exemption someone could forget. The app-wide Fastify hooks still run for them: request id,
 * access log, and metrics by route template (`/console/*`, never the requested path).
 */
export async function registerConsoleHosting(
  app: NestFastifyApplication,
  config: ApiConfig,
  logger: Logger,
  options: ConsoleHostingOptions = {},
): Promise<void> {
  const root = options.directory ?? builtConsoleDirectory();
  const headers = consoleSecurityHeaders({
    issuer: config.auth.issuer,
    frameAncestors: config.console.frameAncestors,
  });
  const clientConfig = consoleClientConfig(config);
  const log = logger.child({ context: 'console-hosting' });
  if (!existsSync(join(root, 'index.html'))) {
    log.warn(
      'the console is not built (dist/console/index.html is missing): /console/ answers 503',
    );
  }

  await app.register(async (scope: FastifyInstance) => {
    // Only reply.sendFile (ETag, Last-Modified, ranges, HEAD, content types): which file a path
    // names is decided below, not by the plugin's own routes. The build writes .br and .gz beside
    // each text file; a browser that accepts one gets it (Vary: Accept-Encoding).
    await scope.register(fastifyStatic, { serve: false, preCompressed: true });
    scope.addHook('onRequest', async (_request, reply) => {
      void reply.headers(headers);
    });
    scope.setErrorHandler((error, request, reply) => {
      log.error({ err: error, request_id: request.id }, 'serving the console failed');
      return sendProblem(reply, problems.internal);
    });

    scope.get('/console', (request, reply) => {
      const query = request.url.indexOf('?');
      return reply.redirect(`${CONSOLE_PREFIX}${query >= 0 ? request.url.slice(query) : ''}`, 301);
    });
    scope.get('/console/config.json', (_request, reply) =>
      reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(clientConfig),
    );
    const serve = (request: FastifyRequest, reply: FastifyReply) =>
      serveConsolePath(root, request, reply);
    scope.get('/console/', serve);
    scope.get('/console/*', serve);
  });
}

async function serveConsolePath(
  root: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const relativePath = consoleRelativePath(request.url.slice(CONSOLE_PREFIX.length));
  if (relativePath === null) {
    return sendProblem(reply, problems.notFound);
  }
  if (!(await isConsoleFile(root, 'index.html'))) {
    return sendProblem(reply, problems.notBuilt);
  }
  if (await isConsoleFile(root, relativePath)) {
    return sendConsoleFile(reply, root, relativePath);
  }
  // A missing hashed file is a stale or broken page asking for a build that is gone: index.html
  // in its place would only fail as a script with the wrong type.
  if (relativePath.startsWith(HASHED_ASSETS_FOLDER)) {
    return sendProblem(reply, problems.notFound);
  }
  // The console's own paths (/console/callback, /console/endpoints/wh_…) are routes of the
  // single-page app, which reads them from the address bar.
  return sendConsoleFile(reply, root, 'index.html');
}

function sendConsoleFile(reply: FastifyReply, root: string, relativePath: string): FastifyReply {
  void reply.header('cache-control', cacheControlFor(relativePath));
  return reply.sendFile(relativePath, root, { cacheControl: false });
}
