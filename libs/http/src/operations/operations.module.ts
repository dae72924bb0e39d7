import { DynamicModule, Global, Module, Provider, Type } from '@nestjs/common';
import { Registry } from 'prom-client';
import { METRICS_REGISTRY, OperationsEndpoints } from './operations-endpoints';
import { READINESS_CHECKS, ReadinessCheck } from './readiness-check';

/**
 * What every app has for its operators: `/healthz`, `/readyz` (ready when every check answers)
 * and `/metrics` from the app's registry, which other providers may add metrics to. They are
 * served on the app's management port (see management-server.ts), not by the app's controllers.
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
      providers: [
        checks,
        { provide: METRICS_REGISTRY, useValue: options.registry },
        OperationsEndpoints,
      ],
      exports: [METRICS_REGISTRY, OperationsEndpoints],
    };
  }
}
