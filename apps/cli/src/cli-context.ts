import {
  CliConfig,
  CliSecretsConfig,
  loadCliConfig,
  loadCliSecretsConfig,
  loadNatsConfig,
} from '@svc/config';
import { openDataSource } from '@svc/database';
import { LocalStackFile, localDataDir, readLocalStackFile } from '@svc/local-development';
import { DataSource } from 'typeorm';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** All of standard input (secrets such as passwords come this way, never as arguments). */
  stdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the person asks a long-running command to stop (Ctrl-C, SIGTERM). */
  untilStopped: () => Promise<void>;
}

/** A failure to report to the person at the terminal, with the exit code to leave with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A catch handler that turns the domain's validation errors into usage errors (exit 2). */
export function asUsageError(...kinds: (abstract new (...args: never[]) => Error)[]) {
  return (error: unknown): never => {
    throw kinds.some((kind) => error instanceof kind)
      ? new CliError((error as Error).message, 2)
      : error;
  };
}

/**
 * What the last `npm start` in this checkout wrote (see @svc/local-development), outside
 * production only; the environment's own settings always win over it.
 */
export function localStack(io: CliIo): Partial<LocalStackFile> {
  if (io.env.NODE_ENV === 'production') {
    return {};
  }
  return readLocalStackFile(localDataDir(io.env, io.cwd)) ?? {};
}

const unset = (value: string | undefined) => value === undefined || value.trim() === '';

/** The environment with what the local stack file adds where the environment says nothing. */
function cliEnv(io: CliIo): NodeJS.ProcessEnv {
  const env = { ...io.env };
  const local = localStack(io);
  if (unset(env.DATABASE_URL) && local.databaseUrl) {
    env.DATABASE_URL = local.databaseUrl;
  }
  if (unset(env.NATS_URL) && local.natsUrl) {
    env.NATS_URL = local.natsUrl;
  }
  if (unset(env.NATS_SUBJECT_ROOT) && local.natsSubjectRoot) {
    env.NATS_SUBJECT_ROOT = local.natsSubjectRoot;
  }
  return env;
}

/** The database and retention settings (DATABASE_URL, DELIVERY_DATA_*): nothing of the apps'. */
export function cliConfig(io: CliIo): CliConfig {
  return loadCliConfig(cliEnv(io));
}

/** For commands that seal or open secrets: the database and the encryption keys. */
export function cliSecretsConfig(io: CliIo): CliSecretsConfig {
  return loadCliSecretsConfig(cliEnv(io));
}

/** For commands that talk only to NATS, so that they need no DATABASE_URL. */
export function cliNatsConfig(io: CliIo): ReturnType<typeof loadNatsConfig> {
  return loadNatsConfig(cliEnv(io));
}

/** Runs `work` with a database connection that is closed afterwards, whatever happens. */
export async function withDatabase<T>(
  io: CliIo,
  work: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  const config = cliConfig(io);
  const dataSource = await openDataSource({ url: config.database.url, poolSize: 2 });
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/** Prints a result as JSON with --json, otherwise as the lines a person reads. */
export function report(io: CliIo, json: boolean, result: unknown, human: string[]): void {
  io.stdout(json ? `${JSON.stringify(result, null, 2)}\n` : `${human.join('\n')}\n`);
}
