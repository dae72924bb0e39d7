import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@svc/config';
import { PlatformModule } from '@svc/platform';
import { Registry } from 'prom-client';

/** The delivery engine grows here; for now it boots, answers health and exports metrics. */
@Module({})
export class DeliveryModule {
  static forRoot(config: AppConfig, registry: Registry): DynamicModule {
    return {
      module: DeliveryModule,
      imports: [PlatformModule.forApp('delivery', config, registry)],
    };
  }
}
