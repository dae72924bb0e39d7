import { cidrs, duration, integer, port, setting, text } from '../kinds';
import { section } from '../section';

/** The limits of every HTTP server of an app, public and management (ADR 0019). */
export interface HttpLimits {
  bodyLimitBytes: number;
  /** Whole request (headers and body) must arrive within this; then 408 and close. */
  requestTimeoutMs: number;
  /** Headers must arrive within this (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections per app and port beyond this are refused. */
  maxConnections: number;
}

export const listen = section({
  name: 'listen',
  variables: { HOST: setting(text('0.0.0.0'), 'interface the apps listen on') },
  build: (values): { host: string } => ({ host: values.HOST }),
});

/** The API's public port and its management port (/healthz, /readyz, /metrics). */
export const apiPorts = section({
  name: 'api ports',
  variables: {
    API_PORT: setting(port(8080), 'public port of the API'),
    API_MANAGEMENT_PORT: setting(
      port(9080),
      "the API's management port: `/healthz`, `/readyz`, `/metrics` (not on the public port)",
    ),
  },
  build: (values): { ports: { api: number }; managementPorts: { api: number } } => ({
    ports: { api: values.API_PORT },
    managementPorts: { api: values.API_MANAGEMENT_PORT },
  }),
});

/** Who is calling the API, for the tenants' audit trail (ADR 0047). */
export const apiClients = section({
  name: 'api clients',
  variables: {
    API_TRUSTED_PROXIES: setting(
      cidrs(),
      'CIDR ranges of proxies whose `X-Forwarded-For` the API believes (rightmost untrusted entry), for the client address in the audit trail',
    ),
  },
  build: (values): { apiClients: { trustedProxies: string[] } } => ({
    apiClients: { trustedProxies: values.API_TRUSTED_PROXIES },
  }),
});

export const authPorts = section({
  name: 'auth ports',
  variables: {
    AUTH_PORT: setting(port(8081), 'public port of the auth app'),
    AUTH_MANAGEMENT_PORT: setting(
      port(9081),
      "the auth app's management port: `/healthz`, `/readyz`, `/metrics`",
    ),
  },
  build: (values): { ports: { auth: number }; managementPorts: { auth: number } } => ({
    ports: { auth: values.AUTH_PORT },
    managementPorts: { auth: values.AUTH_MANAGEMENT_PORT },
  }),
});

/** The engine takes no traffic: its only port is its management port. */
export const deliveryPort = section({
  name: 'delivery port',
  variables: {
    DELIVERY_PORT: setting(
      port(8082),
      "the engine's only port, its management port (it takes no traffic)",
    ),
  },
  build: (values): { ports: { delivery: number } } => ({
    ports: { delivery: values.DELIVERY_PORT },
  }),
});

export const httpLimits = section({
  name: 'HTTP limits',
  variables: {
    HTTP_REQUEST_TIMEOUT: setting(
      duration('30s'),
      'a request (headers and body) not received within this gets a 408 and the connection is closed',
    ),
    HTTP_HEADERS_TIMEOUT: setting(
      duration('10s'),
      'the same for the headers alone (at most `HTTP_REQUEST_TIMEOUT`)',
    ),
    HTTP_KEEP_ALIVE_TIMEOUT: setting(
      duration('72s'),
      "an idle keep-alive connection is closed after this (keep it above your load balancer's idle timeout)",
    ),
    HTTP_MAX_CONNECTIONS: setting(
      integer(1024, 1, 1_000_000),
      'open connections per app and port; more are dropped at once',
    ),
    API_BODY_LIMIT_BYTES: setting(
      integer(65_536, 1024, 10_485_760),
      'larger request bodies get a 413 (every app)',
    ),
  },
  check: (values) =>
    values.HTTP_HEADERS_TIMEOUT > values.HTTP_REQUEST_TIMEOUT
      ? ['HTTP_HEADERS_TIMEOUT: must not be longer than HTTP_REQUEST_TIMEOUT']
      : [],
  build: (values): { http: HttpLimits } => ({
    http: {
      bodyLimitBytes: values.API_BODY_LIMIT_BYTES,
      requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT,
      headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT,
      keepAliveTimeoutMs: values.HTTP_KEEP_ALIVE_TIMEOUT,
      maxConnections: values.HTTP_MAX_CONNECTIONS,
    },
  }),
});
