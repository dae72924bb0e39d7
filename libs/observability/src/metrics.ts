import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * prom-client's default gauges whose names end in `_total`, which Prometheus reserves for
 * counters (`promtool check metrics`: "non-counter metrics should not have _total suffix").
 * Each is the sum of a labelled gauge that stays (`nodejs_active_handles` by type, ...):
 * `sum(nodejs_active_handles)` gives the same number.
 */
const GAUGES_NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** One registry per app, so several apps can run in one process (tests, `npm start`). */
export function createMetricsRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) {
    registry.removeSingleMetric(name);
  }
  new Gauge({
    name: 'svc_build_info',
    help: 'Always 1; the labels say which build runs: version (package.json) and Node.js version.',
    labelNames: ['version', 'node_version'],
    registers: [registry],
  }).set({ version: packageVersion(), node_version: process.version }, 1);
  return registry;
}

let version: string | undefined;

/** The service's version: the nearest package.json above this file (source or dist/). */
function packageVersion(): string {
  if (version === undefined) {
    version = 'unknown';
    for (let directory = __dirname; ; directory = dirname(directory)) {
      const file = join(directory, 'package.json');
      if (existsSync(file)) {
        const manifest = JSON.parse(readFileSync(file, 'utf8')) as { version?: string };
        version = manifest.version ?? 'unknown';
        break;
      }
      if (dirname(directory) === directory) break;
    }
  }
  return version;
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
