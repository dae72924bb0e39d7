import type { INestApplication } from '@nestjs/common';
import { HttpLimits } from '@svc/config';
import Fastify, { FastifyInstance } from 'fastify';
import { AddressInfo } from 'node:net';
import type { HttpMetrics } from '@svc/observability';
import type { Logger } from 'pino';
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPES } from '../problems/problem-details';
import { limitedServerFactory } from '../server-limits';
import { problemClientErrorHandler } from '../problems/framework-problems';
import { OperationsEndpoints } from './operations-endpoints';

const METHOD_NOT_ALLOWED = {
  type: PROBLEM_TYPES.methodNotAllowed,
  title: 'Method not allowed',
  status: 405,
  detail: 'This resource does not support the request method.',
};
const NOT_FOUND = {
  type: PROBLEM_TYPES.notFound,
  title: 'Not found',
  status: 404,
  detail: 'No such resource.',
};

/**
 * The app's management server: `/healthz`, `/readyz` and `/metrics` on a port of their own, so
 * that the public ports (and the Ingress in front of them) never serve them (ADR 0019).
 */
export class ManagementServer {
  private constructor(private readonly fastify: FastifyInstance) {}

  /** `metrics`: the app's HTTP metrics, which count probes and scrapes by their route too. */
  static create(
    endpoints: OperationsEndpoints,
    config: { http: HttpLimits },
    logger: Logger,
    metrics: HttpMetrics,
  ): ManagementServer {
    const fastify = Fastify({
      logger: false,
      serverFactory: limitedServerFactory(config),
      clientErrorHandler: problemClientErrorHandler,
      return503OnClosing: true,
    });
    fastify.addHook('onResponse', async (request, reply) => {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, reply.elapsedTime / 1000);
    });
    const problem = (status: number) => (status === 405 ? METHOD_NOT_ALLOWED : NOT_FOUND);
    const operations = new Map<string, () => Promise<{ status: number; body: unknown }>>([
      ['/healthz', () => Promise.resolve({ status: 200, body: endpoints.live() })],
      [
        '/readyz',
        async () => {
          const readiness = await endpoints.ready();
          return { status: readiness.ready ? 200 : 503, body: readiness.body };
        },
      ],
    ]);
    for (const [path, answer] of operations) {
      fastify.get(path, async (_request, reply) => {
        const { status, body } = await answer();
        return reply.status(status).header('cache-control', 'no-store').send(body);
      });
    }
    fastify.get('/metrics', async (_request, reply) =>
      reply
        .header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
        .send(await endpoints.metrics()),
    );
    fastify.setNotFoundHandler((request, reply) => {
      const known = operations.has(request.url.split('?')[0]) || request.url.startsWith('/metrics');
      const status = known ? 405 : 404;
      if (known) {
        void reply.header('allow', 'GET, HEAD');
      }
      return reply
        .status(status)
        .header('content-type', PROBLEM_CONTENT_TYPE)
        .send(problem(status));
    });
    fastify.setErrorHandler((error, _request, reply) => {
      logger.error({ err: error, context: 'management' }, 'management request failed');
      return reply.status(500).header('content-type', PROBLEM_CONTENT_TYPE).send({
        type: PROBLEM_TYPES.internal,
        title: 'Internal error',
        status: 500,
        detail: 'The service could not complete the request. It has been logged.',
      });
    });
    return new ManagementServer(fastify);
  }

  /** Listens; resolves to the URL it answers on (port 0: an ephemeral port). */
  async listen(port: number, host: string): Promise<string> {
    await this.fastify.listen({ port, host });
    const address = this.fastify.server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${shown}:${address.port}`;
  }

  get listening(): boolean {
    return this.fastify.server.listening;
  }

  close(): Promise<void> {
    return this.fastify.close();
  }
}

const MANAGEMENT = new WeakMap<INestApplication, ManagementServer>();

/** Ties the management server to its app: closing the app closes it. */
export function attachManagementServer(app: INestApplication, server: ManagementServer): void {
  MANAGEMENT.set(app, server);
}

export function managementServerOf(app: INestApplication): ManagementServer {
  const server = MANAGEMENT.get(app);
  if (!server) {
    throw new Error('this app was not made by createHttpApplication: it has no management server');
  }
  return server;
}

export interface ListeningApp {
  /** The public URL; absent for an app without public port (the delivery engine). */
  url?: string;
  managementUrl: string;
}

/**
 * Starts an app: its public port (when it has one) and its management port. An app without a
 * public port (the engine) is initialised without listening publicly.
 */
export async function listenApp(
  app: INestApplication,
  host: string,
  ports: { public?: number; management: number },
): Promise<ListeningApp> {
  let url: string | undefined;
  if (ports.public === undefined) {
    await app.init();
  } else {
    await app.listen(ports.public, host);
    const server = app.getHttpServer() as { address(): AddressInfo };
    const address = server.address();
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    url = `http://${shown}:${address.port}`;
  }
  const managementUrl = await managementServerOf(app).listen(ports.management, host);
  return { url, managementUrl };
}
