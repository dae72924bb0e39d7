import { loadLocalStackVariables } from '@svc/config';
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
  // LOCAL_POSTGRES_PORT, LOCAL_NATS_PORT, LOCAL_NATS_PROBE_URL (docs/configuration.md).
  const local = loadLocalStackVariables(env);
  return {
    repoRoot,
    dataDir,
    postgresDir: join(dataDir, 'postgres'),
    postgresPort: local.postgresPort,
    natsStoreDir: join(dataDir, 'nats'),
    natsPort: local.natsPort,
    natsProbeUrl: local.natsProbeUrl,
    encryptionKeyFile: join(dataDir, 'secret-encryption-key'),
  };
}
