import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, loadConfig } from '@svc/config';
import { listenApp } from '@svc/http';
import { createLogger } from '@svc/observability';
import type { Logger } from 'pino';
import { createAuthApplication } from '../../apps/auth/src/auth-application';
import { createDeliveryApplication } from '../../apps/delivery/src/delivery-application';
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from './test-database';
import { TEST_NATS_URL } from './test-environment';

/** Test configuration: a fresh encryption key, quiet logs, loopback receivers allowed. */
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

/** How each app is assembled: `create*Application` from apps/<name>/src/<name>-application.ts. */
export type AppFactory = (config: AppConfig, logger: Logger) => Promise<NestFastifyApplication>;

export interface RunningApp {
  name: string;
  /** The public port's URL (for the delivery engine, which has none: its management URL). */
  baseUrl: string;
  /** Where the app serves /healthz, /readyz and /metrics (ADR 0019). */
  managementUrl: string;
  config: AppConfig;
  app: NestFastifyApplication;
  close(): Promise<void>;
}

/**
 * Any of the apps, real and complete, on an ephemeral loopback port over a database of its own
 * (copied from the run's migrated template) and the test NATS server.
 */
export interface StartOptions {
  /** Receives every log line the app writes (JSON), instead of stdout. */
  logLines?: string[];
  /** Join this database (created by the caller, who drops it) instead of a new one. */
  databaseUrl?: string;
  /** Listen on this port instead of an ephemeral one (when a URL must be known beforehand). */
  port?: number;
  /** No public port (the delivery engine): only the management port listens. */
  managementOnly?: boolean;
}

export async function startApp(
  name: string,
  create: AppFactory,
  overrides: NodeJS.ProcessEnv = {},
  options: StartOptions = {},
): Promise<RunningApp> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: () => Promise.resolve() }
    : await createTestDatabase();
  try {
    const config = testConfig(database.url, overrides);
    const sink = options.logLines;
    const destination = sink ? { write: (line: string) => void sink.push(line) } : undefined;
    const app = await create(config, createLogger(name, config.logLevel, destination));
    let urls: { url?: string; managementUrl: string };
    try {
      urls = await listenApp(app, '127.0.0.1', {
        public: options.managementOnly ? undefined : (options.port ?? 0),
        management: 0,
      });
    } catch (error) {
      await app.close();
      throw error;
    }
    return {
      name,
      baseUrl: urls.url ?? urls.managementUrl,
      managementUrl: urls.managementUrl,
      config,
      app,
      async close() {
        await app.close();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/** The real authorization server (apps/auth). */
export function startAuth(
  overrides: NodeJS.ProcessEnv = {},
  options: StartOptions = {},
): Promise<RunningApp> {
  return startApp('auth', createAuthApplication, overrides, options);
}

/** The real delivery engine (apps/delivery): health, readiness and metrics over HTTP. */
export function startDelivery(overrides: NodeJS.ProcessEnv = {}): Promise<RunningApp> {
  return startApp('delivery', createDeliveryApplication, overrides, { managementOnly: true });
}
