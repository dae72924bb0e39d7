import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@svc/config';
import { SecretCipher } from '@svc/secrets';
import { EndpointRecoveryService } from './endpoint-recovery.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhooksController } from './webhooks.controller';

@Module({
  controllers: [WebhooksController],
  providers: [
    WebhookEndpointsService,
    EndpointRecoveryService,
    {
      provide: SecretCipher,
      useFactory: (config: AppConfig) => new SecretCipher(config.secrets.encryptionKeys),
      inject: [APP_CONFIG],
    },
  ],
})
export class WebhooksModule {}
