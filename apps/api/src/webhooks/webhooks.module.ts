import { Module } from '@nestjs/common';
import { APP_CONFIG, ApiConfig } from '@svc/config';
import { SecretCipher } from '@svc/secrets';
import {
  EndpointRecoveryService,
  RECOVERY_OPTIONS,
  RecoveryOptions,
  REDRIVE_BATCH_SIZE,
} from './endpoint-recovery.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookFilterController } from './webhook-filter.controller';
import { WebhookFilterTestService } from './webhook-filter-test.service';
import { WebhookSecretController } from './webhook-secret.controller';
import { WebhookSecretService } from './webhook-secret.service';
import { WebhookTestController } from './webhook-test.controller';
import { WebhookTestService } from './webhook-test.service';
import { WebhooksController } from './webhooks.controller';

@Module({
  controllers: [
    WebhooksController,
    WebhookSecretController,
    WebhookTestController,
    WebhookFilterController,
  ],
  providers: [
    WebhookEndpointsService,
    EndpointRecoveryService,
    WebhookSecretService,
    WebhookTestService,
    WebhookFilterTestService,
    {
      provide: RECOVERY_OPTIONS,
      useFactory: (config: ApiConfig): RecoveryOptions => ({
        batchSize: REDRIVE_BATCH_SIZE,
        redriveLimit: config.webhooks.recoverRedriveLimit,
      }),
      inject: [APP_CONFIG],
    },
    {
      provide: SecretCipher,
      useFactory: (config: ApiConfig) => new SecretCipher(config.secrets.encryptionKeys),
      inject: [APP_CONFIG],
    },
  ],
})
export class WebhooksModule {}
