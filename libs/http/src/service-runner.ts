import { INestApplication } from '@nestjs/common';
import { AppConfig, ConfigError, loadConfig } from '@svc/config';
import { createLogger } from '@svc/observability';
import type { Logger } from 'pino';

export interface ServiceDefinition {
  name: string;
  port: (config: AppConfig) => number;
  create: (config: AppConfig, logger: Logger) => Promise<INestApplication>;
}

export interface ListenServiceOptions {
  /** Signals that close the app; leave empty when the caller owns the process's signals. */
  shutdownSignals?: NodeJS.Signals[];
}

/**
 * Starts one app as its own process: validates the configuration (a bad value stops start-up
 * with one line per problem), listens, and shuts down cleanly on SIGTERM and SIGINT.
 */
export async function runService(
  service: ServiceDefinition,
  env = process.env,
): Promise<INestApplication> {
  let config: AppConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service.name}: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  return listenService(service, config, { shutdownSignals: ['SIGTERM', 'SIGINT'] });
}

/**
 * Creates one app from an already validated configuration and listens on its port. Separate
 * from runService so a launcher can run several apps in one process and own the shutdown order.
 */
export async function listenService(
  service: ServiceDefinition,
  config: AppConfig,
  options: ListenServiceOptions = {},
): Promise<INestApplication> {
  const logger = createLogger(service.name, config.logLevel);
  if (config.secrets.usingDevelopmentKey) {
    logger.warn(
      'SECRET_ENCRYPTION_KEY is not set: using the public development key. Never do this in production.',
    );
  }
  const app = await service.create(config, logger);
  if (options.shutdownSignals && options.shutdownSignals.length > 0) {
    app.enableShutdownHooks(options.shutdownSignals);
  }
  const port = service.port(config);
  await app.listen(port, config.host);
  logger.info({ port, host: config.host }, `${service.name} listening`);
  return app;
}
