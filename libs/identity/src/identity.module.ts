import { Global, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeysService } from './api-keys/api-keys.service';
import { BearerAuthGuard } from './guards/bearer-auth.guard';

@Global()
@Module({
  providers: [
    {
      provide: ApiKeysService,
      useFactory: (db: DataSource) => new ApiKeysService(db),
      inject: [DataSource],
    },
    BearerAuthGuard,
  ],
  exports: [ApiKeysService, BearerAuthGuard],
})
export class IdentityModule {}
