import { DynamicModule, Global, Module, Provider, Type } from '@nestjs/common';
import { Registry } from 'prom-client';
import { HealthController } from './health.controller';
import { METRICS_REGISTRY, MetricsController } from './metrics.controller';
import { READINESS_CHECKS, ReadinessCheck } from './readiness-check';

/**
 * The endpoints every app has for its operators: `/healthz`, `/readyz` (ready when every check
 * answers) and `/metrics` from the app's registry, which other providers may add metrics to.
 */
@Global()
@Module({})
export class OperationsModule {
  static forApp(options: {
    registry: Registry;
    readiness: Type<ReadinessCheck>[];
    /** Checks the app made itself (they need no injection). */
    readinessInstances?: ReadinessCheck[];
  }): DynamicModule {
    const checks: Provider = {
      provide: READINESS_CHECKS,
      useFactory: (...instances: ReadinessCheck[]) => [
        ...instances,
        ...(options.readinessInstances ?? []),
      ],
      inject: options.readiness,
    };
    return {
      module: OperationsModule,
      controllers: [HealthController, MetricsController],
      providers: [checks, { provide: METRICS_REGISTRY, useValue: options.registry }],
      exports: [METRICS_REGISTRY],
    };
  }
}
