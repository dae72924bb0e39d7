import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { READINESS_CHECKS, ReadinessCheck } from './readiness-check';

export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

/** 1 or 0 per readiness check, evaluated at each scrape: what /readyz would answer. */
export const READINESS_METRIC = 'svc_readiness_check_ok';

type CheckResult = { status: 'ok' } | { status: 'unavailable'; reason: string };

export interface Readiness {
  ready: boolean;
  body: { status: 'ok' | 'unavailable'; checks: Record<string, unknown> };
}

/**
 * What the management port answers (`/healthz`, `/readyz`, `/metrics`), from the app's readiness
 * checks and metrics registry. Served by the management server, never on a public port. Each
 * readiness check is also a series of `svc_readiness_check_ok{check}` (1 passing, 0 failing),
 * run at each scrape, so that alerts see what the kubelet's readiness probe sees.
 */
@Injectable()
export class OperationsEndpoints {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    @Inject(METRICS_REGISTRY) readonly registry: Registry,
  ) {
    registry.removeSingleMetric(READINESS_METRIC);
    const gauge: Gauge<'check'> = new Gauge({
      name: READINESS_METRIC,
      help: '1 while the readiness check passes, 0 while it fails (what /readyz answers; run at each scrape).',
      labelNames: ['check'],
      registers: [registry],
      collect: async () => {
        for (const [check, result] of await this.runChecks()) {
          gauge.set({ check }, result.status === 'ok' ? 1 : 0);
        }
      },
    });
  }

  /** Liveness: the process answers. Never touches dependencies, so a database outage does not restart pods. */
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  async ready(): Promise<Readiness> {
    const results = await this.runChecks();
    const ready = results.every(([, result]) => result.status === 'ok');
    return {
      ready,
      body: {
        status: ready ? 'ok' : 'unavailable',
        checks: Object.fromEntries(results),
      },
    };
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  private runChecks(): Promise<[string, CheckResult][]> {
    return Promise.all(
      this.checks.map(async (dependency): Promise<[string, CheckResult]> => {
        try {
          await dependency.check();
          return [dependency.name, { status: 'ok' }];
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          return [dependency.name, { status: 'unavailable', reason }];
        }
      }),
    );
  }
}
