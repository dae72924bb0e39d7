import { HttpLimits } from '@svc/config';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { withConnectionManners } from './connection-manners';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Node's HTTP server with the app's limits (ADR 0019): the whole request (headers and body) must
 * arrive within HTTP_REQUEST_TIMEOUT and the headers within HTTP_HEADERS_TIMEOUT (then 408 and
 * close), idle keep-alive connections close after HTTP_KEEP_ALIVE_TIMEOUT, and connections past
 * HTTP_MAX_CONNECTIONS are dropped at once. Node checks the timeouts on an interval (30 s by
 * default), so the interval follows the shortest timeout. Before and after Fastify, the
 * connection manners (connection-manners.ts): a problem document for a request without Host, a
 * lingering close after an early answer.
 */
export function limitedServerFactory(config: { http: HttpLimits }): (handler: Handler) => Server {
  const limits = config.http;
  return (handler) => {
    const server = createServer(
      {
        requestTimeout: limits.requestTimeoutMs,
        headersTimeout: limits.headersTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.max(100, Math.min(1000, limits.headersTimeoutMs / 2)),
        // withConnectionManners answers a missing Host with a problem document instead
        requireHostHeader: false,
      },
      withConnectionManners(handler),
    );
    server.maxConnections = limits.maxConnections;
    // An idle socket (no request at all under way) is closed after the request timeout too.
    server.setTimeout(Math.max(limits.requestTimeoutMs, limits.keepAliveTimeoutMs) + 1000);
    return server;
  };
}
