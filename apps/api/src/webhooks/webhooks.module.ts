import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@svc/config';
import { SecretCipher } from '@svc/secrets';
import {
  EndpointRecoveryService,
  RECOVERY_OPTIONS,
  RecoveryOptions,
  REDRIVE_BATCH_SIZE,
} from './endpoint-recovery.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhooksController } from './webhooks.controller';

@Module({
  controllers: [WebhooksController],
  providers: [
    WebhookEndpointsService,
    EndpointRecoveryService,
    {
      provide: RECOVERY_OPTIONS,
      useFactory: (config: AppConfig): RecoveryOptions => ({
        batchSize: REDRIVE_BATCH_SIZE,
        redriveLimit: config.webhooks.recoverRedriveLimit,
      }),
      inject: [APP_CONFIG],
    },
    {
      provide: SecretCipher,
      useFactory: (config: AppConfig) => new SecretCipher(config.secrets.encryptionKeys),
      inject: [APP_CONFIG],
    },
  ],
})
export class WebhooksModule {}
