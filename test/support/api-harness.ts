import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Scope } from '@svc/contracts';
import { ApiKeyEnvironment, ApiKeysService } from '@svc/identity';
import { TenantsService } from '@svc/tenants';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createApiApplication } from '../../apps/api/src/api-application';
import { RunningApp, startApp, StartOptions } from './app-harness';

export interface RunningApi extends RunningApp {
  app: NestFastifyApplication;
  dataSource: DataSource;
  /** A new tenant with a key holding the given scopes. */
  newTenantWithKey(
    scopes: Scope[],
    environment?: ApiKeyEnvironment,
  ): Promise<{ tenantId: string; key: string; keyId: string }>;
}

/** The real registration API on an ephemeral loopback port, over its own database. */
export async function startApi(
  overrides: NodeJS.ProcessEnv = {},
  options: StartOptions = {},
): Promise<RunningApi> {
  const running = await startApp('api', createApiApplication, overrides, options);
  const dataSource = running.app.get(DataSource);
  const tenants = new TenantsService(dataSource);
  const apiKeys = new ApiKeysService(dataSource);
  return {
    ...running,
    dataSource,
    async newTenantWithKey(scopes, environment = 'live') {
      const tenant = await tenants.create(`tenant ${randomBytes(3).toString('hex')}`);
      const { record, key } = await apiKeys.create({ tenantId: tenant.id, scopes, environment });
      return { tenantId: tenant.id, key, keyId: record.id };
    },
  };
}
