import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { createApiApplication } from '../../apps/api/src/api-application';
import { createAuthApplication } from '../../apps/auth/src/auth-application';
import { createDeliveryApplication } from '../../apps/delivery/src/delivery-application';
import { AppConfig, ConfigError, loadConfig } from '@svc/config';
import { migrateDatabase } from '@svc/database';
import { writeLocalStackFile } from '@svc/local-development';
import { builtConsoleDirectory, listenService, ServiceDefinition } from '@svc/http';
import { createLogger, startTracing } from '@svc/observability';
import { isColorSupported } from 'pino-pretty';
import type { DestinationStream, Logger } from 'pino';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { localUrl, renderBanner, withoutPassword } from './banner';
import { LocalPostgres } from './embedded-postgres';
import { loadOrCreateEncryptionKey } from './encryption-key';
import { localDeliveryPath } from './local-delivery-path';
import { findNatsServer, NatsServerProcess, natsAnswers } from './local-nats';
import { chooseLogFormat, readableDestination } from './readable-logs';
import { fromEnv, LocalStackError, LocalStackSettings, readLocalStackSettings } from './settings';
import { ShutdownSequence } from './shutdown-sequence';

/** The apps' loggers, kept so their buffered lines can be written out before the banner. */
const appLoggers: Logger[] = [];

/** Where every logger of the stack writes: readable lines at a terminal, else JSON to stdout. */
let logDestination: DestinationStream | undefined;

function service(
  name: string,
  ports: Pick<ServiceDefinition<AppConfig>, 'port' | 'managementPort'>,
  create: ServiceDefinition<AppConfig>['create'],
): ServiceDefinition<AppConfig> {
  return {
    name,
    ...ports,
    create: (config, logger) => {
      appLoggers.push(logger);
      return create(config, logger);
    },
  };
}

const SERVICES = [
  service(
    'api',
    { port: (config) => config.ports.api, managementPort: (config) => config.managementPorts.api },
    createApiApplication,
  ),
  service(
    'auth',
    {
      port: (config) => config.ports.auth,
      managementPort: (config) => config.managementPorts.auth,
    },
    createAuthApplication,
  ),
  service(
    'delivery',
    { managementPort: (config) => config.ports.delivery },
    createDeliveryApplication,
  ),
];

/** Stands in for the embedded database's URL while the rest of the configuration is checked. */
const URL_NOT_YET_KNOWN = 'postgres://embedded/svc';

const shutdown = new ShutdownSequence();

/**
 * `npm start`: everything on one machine in one process. PostgreSQL and NATS are used when given
 * (DATABASE_URL, NATS_URL) and provided locally when not, then the three apps listen.
 */
async function main(): Promise<void> {
  const env = process.env;
  const logFormat = chooseLogFormat(process.argv.slice(2), process.stdout.isTTY === true);
  const settings = readLocalStackSettings(env);
  const encryptionKey =
    fromEnv(env, 'SECRET_ENCRYPTION_KEY') ??
    (await loadOrCreateEncryptionKey(settings.encryptionKeyFile));
  const deliveryPath = await localDeliveryPath(env, settings.dataDir);
  const localOverrides = deliveryPath && {
    WEBHOOK_ALLOWED_PRIVATE_CIDRS: deliveryPath.WEBHOOK_ALLOWED_PRIVATE_CIDRS,
    DELIVERY_EXTRA_CA_FILE: deliveryPath.DELIVERY_EXTRA_CA_FILE,
  };
  // Checked before anything boots, so a typo costs no waiting and leaves nothing to clean up.
  const preliminary = loadConfig({
    ...env,
    ...localOverrides,
    DATABASE_URL: fromEnv(env, 'DATABASE_URL') ?? URL_NOT_YET_KNOWN,
    SECRET_ENCRYPTION_KEY: encryptionKey,
  });
  if (logFormat === 'readable') {
    logDestination = readableDestination({
      output: process.stdout,
      colorize: isColorSupported,
      level: preliminary.logLevel,
    });
  }
  const logger = createLogger('local-stack', preliminary.logLevel, logDestination);
  handleSignals(logger);
  // One process, three apps: tracing is process-wide, so it starts once, here.
  const tracing = startTracing('svc-local-stack', {
    otlpEndpoint: preliminary.tracing.otlpEndpoint,
  });
  shutdown.add('tracing', () => tracing.shutdown());

  const natsSource = await findNats(env, settings);
  if (shutdown.started) {
    return;
  }
  const database = await provideDatabase(env, settings, logger);
  if (shutdown.started) {
    return;
  }
  // Started after PostgreSQL so that it is stopped before it.
  const nats = await provideNats(natsSource, settings, logger);
  if (shutdown.started) {
    return;
  }

  const config = loadConfig({
    ...env,
    ...localOverrides,
    DATABASE_URL: database.url,
    NATS_URL: nats.url,
    SECRET_ENCRYPTION_KEY: encryptionKey,
  });
  const applied = await migrateDatabase(config.database.url, config.retention).catch(
    (error: Error) => {
      throw new LocalStackError(
        `cannot migrate the database at ${withoutPassword(config.database.url)}: ${error.message}`,
      );
    },
  );
  logger.info({ applied }, applied.length ? 'applied migrations' : 'database is up to date');
  await writeLocalStackFile(settings.dataDir, {
    databaseUrl: database.url,
    natsUrl: nats.url,
    natsSubjectRoot: config.jetstream.subjectRoot,
    apiUrl: localUrl(config.host, config.ports.api),
  });

  await startApps(config);
  if (shutdown.started) {
    return;
  }
  // pino writes asynchronously; without this the banner lands among the apps' start-up lines.
  await Promise.all([logger, ...appLoggers].map(flush));
  process.stdout.write(
    renderBanner({
      host: config.host,
      ports: config.ports,
      managementPorts: config.managementPorts,
      databaseUrl: database.url,
      embeddedDataDir: database.embedded ? settings.postgresDir : undefined,
      natsUrl: nats.url,
      natsStoreDir: nats.started ? settings.natsStoreDir : undefined,
      localCaFile: deliveryPath?.caCertFile,
      console: {
        url: config.console.url,
        built: existsSync(join(builtConsoleDirectory(), 'index.html')),
      },
    }),
  );
}

async function provideDatabase(
  env: NodeJS.ProcessEnv,
  settings: LocalStackSettings,
  logger: Logger,
): Promise<{ url: string; embedded: boolean }> {
  const given = fromEnv(env, 'DATABASE_URL');
  if (given) {
    return { url: given, embedded: false };
  }
  const postgres = new LocalPostgres({
    dataDir: settings.postgresDir,
    port: settings.postgresPort,
    logger,
  });
  shutdown.add('embedded PostgreSQL', () => postgres.stop());
  const url = await postgres.start();
  logger.info({ port: settings.postgresPort }, 'embedded PostgreSQL is ready');
  return { url, embedded: true };
}

type NatsSource = { url: string } | { binary: string };

/** Settled before PostgreSQL boots, so a machine without NATS fails at once. */
async function findNats(env: NodeJS.ProcessEnv, settings: LocalStackSettings): Promise<NatsSource> {
  const given = fromEnv(env, 'NATS_URL');
  if (given) {
    return { url: given };
  }
  if (await natsAnswers(settings.natsProbeUrl)) {
    return { url: settings.natsProbeUrl };
  }
  const binary = findNatsServer(env);
  if (!binary) {
    throw new LocalStackError(
      `no NATS: nothing answers at ${settings.natsProbeUrl} and nats-server is not installed; ` +
        'install it (Debian/Ubuntu: apt-get install nats-server) or set NATS_URL to a NATS server with JetStream',
    );
  }
  return { binary };
}

async function provideNats(
  source: NatsSource,
  settings: LocalStackSettings,
  logger: Logger,
): Promise<{ url: string; started: boolean }> {
  if ('url' in source) {
    return { url: source.url, started: false };
  }
  const server = new NatsServerProcess({
    binary: source.binary,
    port: settings.natsPort,
    storeDir: settings.natsStoreDir,
    logger,
  });
  shutdown.add('nats-server', () => server.stop());
  logger.info(
    { binary: source.binary, port: settings.natsPort },
    `nothing answers at ${settings.natsProbeUrl}: starting nats-server`,
  );
  const url = await server.start();
  logger.info({ url }, 'nats-server is ready');
  return { url, started: true };
}

async function startApps(config: AppConfig): Promise<void> {
  const apps: INestApplication[] = [];
  // One step for all three: they depend on PostgreSQL and NATS, not on each other.
  shutdown.add('apps', () => Promise.all(apps.map((app) => app.close())));
  for (const service of SERVICES) {
    apps.push(
      await listenService(service, config, logDestination).catch((error) =>
        explainListenError(service, config, error),
      ),
    );
    if (shutdown.started) {
      return;
    }
  }
}

function explainListenError(
  service: ServiceDefinition<AppConfig>,
  config: AppConfig,
  error: unknown,
): never {
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    const management = service.managementPort(config);
    const port = (error as { port?: number }).port ?? service.port?.(config) ?? management;
    const variable =
      port === management && service.port
        ? `${service.name.toUpperCase()}_MANAGEMENT_PORT`
        : `${service.name.toUpperCase()}_PORT`;
    throw new LocalStackError(
      `${service.name} cannot listen on ${config.host}:${port}, the port is in use; free it or set ${variable}`,
    );
  }
  throw error;
}

/**
 * Under npm a Ctrl-C arrives twice (from the terminal and forwarded by npm), so repeats are
 * ignored; the step timeouts of the shutdown sequence keep a stuck part from hanging the exit.
 */
function handleSignals(logger: Logger): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (!shutdown.started) {
      logger.info({ signal }, 'stopping');
    }
    void shutdown.run(logger).then((clean) => process.exit(clean ? 0 : 1));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, onSignal);
  }
}

function flush(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}

function report(error: unknown): void {
  if (error instanceof ConfigError || error instanceof LocalStackError) {
    process.stderr.write(`local-stack: ${error.message}\n`);
  } else {
    process.stderr.write(
      `local-stack: start-up failed: ${(error as Error)?.stack ?? String(error)}\n`,
    );
  }
}

main().catch(async (error: unknown) => {
  // Failures caused by a shutdown already under way are expected; that shutdown sets the exit code.
  if (shutdown.started) {
    return;
  }
  report(error);
  const logger = createLogger('local-stack', 'info', logDestination);
  await shutdown.run(logger);
  process.exit(error instanceof ConfigError ? 78 : 1);
});
