import { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { HttpLimits } from '@svc/config';
import {
  createHttpMetrics,
  createMetricsRegistry,
  NestPinoLogger,
  redactUrl,
} from '@svc/observability';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { attachManagementServer, ManagementServer } from './operations/management-server';
import { OperationsEndpoints } from './operations/operations-endpoints';
import {
  FASTIFY_ERROR_PROBLEMS,
  FRAMEWORK_PROBLEMS,
  problemClientErrorHandler,
} from './problems/framework-problems';
import { PROBLEM_CONTENT_TYPE, ProblemDetails } from './problems/problem-details';
import { ProblemDetailsFilter } from './problems/problem-details.filter';
import { nameRequestSpan, requestSpanFields, traceRequests } from './request-tracing';
import { limitedServerFactory } from './server-limits';
import { createValidationPipe } from './validation';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Deeper JSON bodies are a 400: no request of this service nests more than a few levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * A Nest app on Fastify with the conventions every app of this service shares: JSON bodies only
 * (anything else is a 415), a body limit (413), a JSON depth limit, time and connection limits
 * (ADR 0019), problem details for every error (the framework's own included), request ids,
 * a server span per request that continues the caller's `traceparent`, an access log without
 * query strings or credentials and with the request's trace and span ids, and HTTP metrics by
 * route template in the app's own metrics registry, which the module receives to add its own
 * metrics to. Its operations endpoints are served by a management server of their own
 * (`listenApp`).
 */
export async function createHttpApplication(
  appName: string,
  moduleFor: (registry: Registry) => Type | DynamicModule,
  config: { http: HttpLimits },
  logger: Logger,
): Promise<NestFastifyApplication> {
  const registry = createMetricsRegistry(appName);
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    logger: false,
    return503OnClosing: true,
    serverFactory: (handler: (request: IncomingMessage, response: ServerResponse) => void) =>
      limitedServerFactory(config)(traceRequests(handler)),
    clientErrorHandler: problemClientErrorHandler,
    // A malformed URL (400) or an over-long path segment (414), refused by the router before
    // any route: a problem document that does not echo the path (Fastify's message does).
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      const code = (error as { code?: string }).code ?? '';
      sendProblem(reply, request.id, FASTIFY_ERROR_PROBLEMS[code] ?? FRAMEWORK_PROBLEMS.badUrl);
    },
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(moduleFor(registry), adapter, {
    logger: new NestPinoLogger(logger),
    bodyParser: false,
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeContentTypeParser('text/plain');
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (error) {
        done(error, undefined);
      } else if (nestingDepthExceeds(value, MAX_JSON_DEPTH)) {
        done(
          Object.assign(new Error('JSON body nested too deep'), {
            code: 'SVC_ERR_JSON_TOO_DEEP',
            statusCode: 400,
          }),
          undefined,
        );
      } else {
        done(null, value);
      }
    }),
  );

  const metrics = createHttpMetrics(registry);
  const accessLog = logger.child({ context: 'http' });
  const management = ManagementServer.create(app.get(OperationsEndpoints), config, logger, metrics);
  attachManagementServer(app, management);
  fastify.addHook('onClose', async () => {
    if (management.listening) {
      await management.close();
    }
  });
  fastify.addHook('onRequest', (request, _reply, done) => {
    nameRequestSpan(request.raw, request.method, request.routeOptions.url ?? 'unmatched');
    done();
  });
  fastify.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  });
  fastify.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    const seconds = reply.elapsedTime / 1000;
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, seconds);
    accessLog.info(
      {
        request_id: request.id,
        method: request.method,
        route: labels.route,
        path: redactUrl(request.url.split('?')[0]),
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime),
        ...requestSpanFields(request.raw),
      },
      'request',
    );
  });

  app.useGlobalFilters(new ProblemDetailsFilter(logger));
  app.useGlobalPipes(createValidationPipe());
  return app;
}

function sendProblem(reply: FastifyReply, requestId: string, problem: ProblemDetails): void {
  void reply
    .status(problem.status)
    .headers({
      'content-type': PROBLEM_CONTENT_TYPE,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': requestId,
    })
    .send(JSON.stringify(problem));
}

/** Whether `value` nests arrays or objects deeper than `limit` (iteratively: no recursion). */
export function nestingDepthExceeds(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') {
      continue;
    }
    if (depth >= limit) {
      return true;
    }
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === 'object') {
        pending.push([child, depth + 1]);
      }
    }
  }
  return false;
}
