import { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@svc/config';
import { createHttpMetrics, createMetricsRegistry, NestPinoLogger } from '@svc/observability';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { ProblemDetailsFilter } from './problems/problem-details.filter';
import { createValidationPipe } from './validation';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * A Nest app on Fastify with the conventions every app of this service shares: JSON bodies only
 * (anything else is a 415), a body limit (413), problem details for every error, request ids,
 * an access log without query strings, and HTTP metrics by route template in the app's own
 * metrics registry, which the module receives to add its own metrics to.
 */
export async function createHttpApplication(
  appName: string,
  moduleFor: (registry: Registry) => Type | DynamicModule,
  config: AppConfig,
  logger: Logger,
): Promise<NestFastifyApplication> {
  const registry = createMetricsRegistry(appName);
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    logger: false,
    return503OnClosing: true,
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

  const metrics = createHttpMetrics(registry);
  const accessLog = logger.child({ context: 'http' });
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
        path: request.url.split('?')[0],
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });

  app.useGlobalFilters(new ProblemDetailsFilter());
  app.useGlobalPipes(createValidationPipe());
  return app;
}
