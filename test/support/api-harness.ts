import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, loadConfig } from '@svc/config';
import { Scope } from '@svc/contracts';
import { ApiKeyEnvironment, ApiKeysService } from '@svc/identity';
import { createLogger } from '@svc/observability';
import { TenantsService } from '@svc/tenants';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createApiApplication } from '../../apps/api/src/api-application';
import { createTestDatabase } from './test-database';
import { TEST_NATS_URL } from './test-environment';

export interface RunningApi {
  baseUrl: string;
  config: AppConfig;
  app: NestFastifyApplication;
  dataSource: DataSource;
  /** A new tenant with a key holding the given scopes. */
  newTenantWithKey(
    scopes: Scope[],
    environment?: ApiKeyEnvironment,
  ): Promise<{ tenantId: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

export function testConfig(databaseUrl: string, overrides: NodeJS.ProcessEnv = {}): AppConfig {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '4',
    NATS_URL: TEST_NATS_URL,
    SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8,::1/128',
    ...overrides,
  });
}

/** The real registration API on an ephemeral loopback port, over its own database. */
export async function startApi(overrides: NodeJS.ProcessEnv = {}): Promise<RunningApi> {
  const database = await createTestDatabase();
  const config = testConfig(database.url, overrides);
  const app = await createApiApplication(config, createLogger('api', config.logLevel));
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const dataSource = app.get(DataSource);
  const tenants = new TenantsService(dataSource);
  const apiKeys = new ApiKeysService(dataSource);
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    config,
    app,
    dataSource,
    async newTenantWithKey(scopes, environment = 'live') {
      const tenant = await tenants.create(`tenant ${randomBytes(3).toString('hex')}`);
      const { record, key } = await apiKeys.create({ tenantId: tenant.id, scopes, environment });
      return { tenantId: tenant.id, key, keyId: record.id };
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
