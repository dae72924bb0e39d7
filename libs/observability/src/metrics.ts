import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** One registry per app, so several apps can run in one process (tests, `npm start`). */
export function createMetricsRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface HttpMetrics {
  requests: Counter<'method' | 'route' | 'status_code'>;
  duration: Histogram<'method' | 'route' | 'status_code'>;
}

export function createHttpMetrics(registry: Registry): HttpMetrics {
  const labelNames = ['method', 'route', 'status_code'] as const;
  return {
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code.',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving an HTTP request to sending the answer.',
      labelNames,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}
