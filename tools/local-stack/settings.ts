import { ConfigError } from '@svc/config';
import { localDataDir } from '@svc/local-development';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A start-up failure the person at the terminal can fix; printed as one line, no stack. */
export class LocalStackError extends Error {
  override name = 'LocalStackError';
}

export interface LocalStackSettings {
  repoRoot: string;
  /** Everything the launcher keeps between runs: LOCAL_DATA_DIR, or the git-ignored .data/. */
  dataDir: string;
  postgresDir: string;
  postgresPort: number;
  natsStoreDir: string;
  natsPort: number;
  /** Where to look for an already running NATS before starting one. */
  natsProbeUrl: string;
  encryptionKeyFile: string;
}

/** Treats an empty variable like a missing one, so `DATABASE_URL= npm start` means "embedded". */
export function fromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function portFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = fromEnv(env, name);
  if (raw === undefined) {
    return fallback;
  }
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError([`${name}: must be a port number between 1 and 65535`]);
  }
  return port;
}

/**
 * The compiled launcher runs from dist/tools/local-stack and the sources from tools/local-stack,
 * so the repository root is found by looking for package.json rather than by a fixed depth.
 */
export function findRepoRoot(start: string = __dirname): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) {
      throw new LocalStackError(`cannot find the repository root (no package.json above ${start})`);
    }
    dir = parent;
  }
  return dir;
}

export function readLocalStackSettings(
  env: NodeJS.ProcessEnv,
  repoRoot = findRepoRoot(),
): LocalStackSettings {
  const dataDir = localDataDir(env, repoRoot);
  return {
    repoRoot,
    dataDir,
    postgresDir: join(dataDir, 'postgres'),
    postgresPort: portFromEnv(env, 'LOCAL_POSTGRES_PORT', 5433),
    natsStoreDir: join(dataDir, 'nats'),
    natsPort: portFromEnv(env, 'LOCAL_NATS_PORT', 4223),
    natsProbeUrl: fromEnv(env, 'LOCAL_NATS_PROBE_URL') ?? 'nats://127.0.0.1:4222',
    encryptionKeyFile: join(dataDir, 'secret-encryption-key'),
  };
}
