import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '@svc/config';

@Global()
@Module({})
export class ConfigModule {
  /** `config`: the sections the app loaded (ApiConfig, AuthAppConfig, ...), under APP_CONFIG. */
  static forRoot(config: object): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }],
      exports: [APP_CONFIG],
    };
  }
}
