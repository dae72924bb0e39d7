import { Inject, Injectable } from '@nestjs/common';
import { Registry } from 'prom-client';
import { READINESS_CHECKS, ReadinessCheck } from './readiness-check';

export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

export interface Readiness {
  ready: boolean;
  body: { status: 'ok' | 'unavailable'; checks: Record<string, unknown> };
}

/**
 * What the management port answers (`/healthz`, `/readyz`, `/metrics`), from the app's readiness
 * checks and metrics registry. Served by the management server, never on a public port.
 */
@Injectable()
export class OperationsEndpoints {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    @Inject(METRICS_REGISTRY) readonly registry: Registry,
  ) {}

  /** Liveness: the process answers. Never touches dependencies, so a database outage does not restart pods. */
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  async ready(): Promise<Readiness> {
    const results = await Promise.all(
      this.checks.map(async (dependency) => {
        try {
          await dependency.check();
          return [dependency.name, { status: 'ok' }] as const;
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          return [dependency.name, { status: 'unavailable', reason }] as const;
        }
      }),
    );
    const ready = results.every(([, result]) => result.status === 'ok');
    return {
      ready,
      body: {
        status: ready ? 'ok' : 'unavailable',
        checks: Object.fromEntries(results) as Record<string, unknown>,
      },
    };
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
