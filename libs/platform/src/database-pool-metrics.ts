import { connectionPoolOf } from '@svc/event-store';
import { Gauge, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

/**
 * The app's PostgreSQL connection pool at each scrape: connections open and idle, callers
 * waiting for one, and the configured maximum (DATABASE_POOL_SIZE). Waiting callers while every
 * connection is busy mean the pool, not PostgreSQL, is the bottleneck.
 */
export class DatabasePoolMetrics {
  constructor(dataSource: DataSource, registry: Registry, maxConnections: number) {
    const pool = () => connectionPoolOf(dataSource);
    const connections = new Gauge({
      name: 'svc_database_pool_connections',
      help: 'PostgreSQL connections of the pool, by state (idle or in use).',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const counts = pool();
        connections.set({ state: 'idle' }, counts?.idleCount ?? 0);
        connections.set({ state: 'in_use' }, (counts?.totalCount ?? 0) - (counts?.idleCount ?? 0));
      },
    });
    const waiting = new Gauge({
      name: 'svc_database_pool_waiting_clients',
      help: 'Queries waiting for a free PostgreSQL connection of the pool.',
      registers: [registry],
      collect() {
        waiting.set(pool()?.waitingCount ?? 0);
      },
    });
    new Gauge({
      name: 'svc_database_pool_max_connections',
      help: 'The most PostgreSQL connections the pool opens (DATABASE_POOL_SIZE).',
      registers: [registry],
    }).set(maxConnections);
  }
}
