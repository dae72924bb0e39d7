import { Module } from '@nestjs/common';
import { APP_CONFIG, ApiConfig } from '@svc/config';
import { SecretCipher } from '@svc/secrets';
import { SigningKeyStore } from '@svc/signing-keys';
import { DataSource } from 'typeorm';
import { SigningKeysController } from './signing-keys.controller';

/** The public half of the deployment's webhook signing keys (ADR 0044). */
@Module({
  controllers: [SigningKeysController],
  providers: [
    {
      provide: SigningKeyStore,
      // The cipher opens private keys only; the API reads public keys, but makes the first key
      // (sealed under the same encryption key as the engine's) when none exists yet.
      useFactory: (config: ApiConfig, dataSource: DataSource) =>
        new SigningKeyStore(dataSource, new SecretCipher(config.secrets.encryptionKeys)),
      inject: [APP_CONFIG, DataSource],
    },
  ],
})
export class SigningKeysModule {}
