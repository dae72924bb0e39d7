import { INestApplication } from '@nestjs/common';
import { ConfigError, LogLevel } from '@svc/config';
import { createLogger, startTracing } from '@svc/observability';
import type { DestinationStream, Logger } from 'pino';
import { listenApp } from './operations/management-server';

/** What the runner itself reads of an app's configuration. */
export interface ServiceConfig {
  logLevel: LogLevel;
  host: string;
  tracing: { otlpEndpoint?: string };
  /** Absent for an app that keeps no secrets (auth). */
  secrets?: { usingDevelopmentKey: boolean };
}

export interface ServiceDefinition<C extends ServiceConfig> {
  name: string;
  /** The public port; absent for an app that takes no traffic (the delivery engine). */
  port?: (config: C) => number;
  /** Where /healthz, /readyz and /metrics are served (ADR 0019). */
  managementPort: (config: C) => number;
  create: (config: C, logger: Logger) => Promise<INestApplication>;
}

/** A service run as its own process: it loads its own sections of the configuration. */
export interface RunnableService<C extends ServiceConfig> extends ServiceDefinition<C> {
  load: (env: NodeJS.ProcessEnv) => C;
}

/** Exit code of a configuration error (sysexits EX_CONFIG), at load or while assembling an app. */
export const CONFIG_ERROR_EXIT_CODE = 78;

/**
 * Starts one app as its own process: validates the configuration (a bad value stops start-up
 * with one line per problem), listens, and shuts down cleanly on SIGTERM and SIGINT.
 */
export async function runService<C extends ServiceConfig>(
  service: RunnableService<C>,
  env = process.env,
): Promise<INestApplication> {
  let config: C;
  try {
    config = service.load(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service.name}: ${error.message}\n`);
      process.exit(CONFIG_ERROR_EXIT_CODE);
    }
    throw error;
  }
  // Tracing is process-wide: started here, once, for the one app this process runs.
  const tracing = startTracing(`svc-${service.name}`, {
    otlpEndpoint: config.tracing.otlpEndpoint,
  });
  let app: INestApplication;
  try {
    app = await listenService(service, config);
  } catch (error) {
    // A setting that only the app itself can check (e.g. AUTH_SIGNING_KEYS in production).
    if (error instanceof ConfigError) {
      process.stderr.write(`${service.name}: ${error.message}\n`);
      process.exit(CONFIG_ERROR_EXIT_CODE);
    }
    throw error;
  }
  exitCleanlyOn(['SIGTERM', 'SIGINT'], async () => {
    await app.close();
    await tracing.shutdown();
  });
  return app;
}

/**
 * On the first of these signals: run `close` (the app's shutdown hooks: finish in-flight work,
 * flush records, close connections), then exit 0, or 1 if closing failed. Nest's own signal
 * handling re-raises the signal after closing, which ends the process as killed, not as done.
 */
function exitCleanlyOn(signals: NodeJS.Signals[], close: () => Promise<void>): void {
  const onSignal = (signal: NodeJS.Signals) => {
    signals.forEach((name) => process.removeListener(name, onSignal));
    process.stderr.write(`${signal} received: shutting down\n`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  signals.forEach((name) => process.once(name, onSignal));
}

/**
 * Creates one app from an already validated configuration and listens on its port. Separate
 * from runService so a launcher can run several apps in one process and own the shutdown order
 * (and where their log goes: stdout, as JSON, unless `destination` is given).
 */
export async function listenService<C extends ServiceConfig>(
  service: ServiceDefinition<C>,
  config: C,
  destination?: DestinationStream,
): Promise<INestApplication> {
  const logger = createLogger(service.name, config.logLevel, destination);
  if (config.secrets?.usingDevelopmentKey) {
    logger.warn(
      'SECRET_ENCRYPTION_KEY is not set: using the public development key. Never do this in production.',
    );
  }
  const app = await service.create(config, logger);
  const port = service.port?.(config);
  const managementPort = service.managementPort(config);
  try {
    await listenApp(app, config.host, { public: port, management: managementPort });
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  logger.info(
    { port, management_port: managementPort, host: config.host },
    `${service.name} listening`,
  );
  return app;
}
