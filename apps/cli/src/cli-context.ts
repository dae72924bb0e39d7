import { AppConfig, loadConfig } from '@svc/config';
import { openDataSource } from '@svc/database';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** All of standard input (secrets such as passwords come this way, never as arguments). */
  stdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
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

/** Written by `npm start` so that the CLI finds the embedded database without being told. */
export const LOCAL_STACK_FILE = join('.data', 'local-stack.json');

export function cliConfig(io: CliIo): AppConfig {
  const env = { ...io.env };
  const localStack = join(io.cwd, LOCAL_STACK_FILE);
  if (env.DATABASE_URL === undefined && env.NODE_ENV !== 'production' && existsSync(localStack)) {
    env.DATABASE_URL = (
      JSON.parse(readFileSync(localStack, 'utf8')) as { databaseUrl: string }
    ).databaseUrl;
  }
  return loadConfig(env);
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
