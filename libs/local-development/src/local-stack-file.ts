import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * What `npm start` tells the admin CLI about the stack it runs, so that `svc` commands find the
 * database, NATS and the API without being told. Written to `<data dir>/local-stack.json`.
 */
export interface LocalStackFile {
  databaseUrl: string;
  natsUrl: string;
  natsSubjectRoot: string;
  /** The registration API as this machine reaches it, e.g. http://localhost:8080. */
  apiUrl: string;
}

/**
 * The local stack's state folder: LOCAL_DATA_DIR, or `.data` in the folder the command runs in
 * (npm runs scripts in the repository root, so `npm start` and `npm run svc` agree).
 */
export function localDataDir(env: NodeJS.ProcessEnv, cwd: string): string {
  const given = env.LOCAL_DATA_DIR?.trim();
  return given ? resolve(cwd, given) : join(cwd, '.data');
}

const fileIn = (dataDir: string) => join(dataDir, 'local-stack.json');

/** It holds the database password, hence mode 0600. */
export async function writeLocalStackFile(dataDir: string, content: LocalStackFile): Promise<void> {
  // With DATABASE_URL and SECRET_ENCRYPTION_KEY given, nothing else has made the folder yet.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(fileIn(dataDir), `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}

/** The file of the last `npm start` in this data folder, if there was one. */
export function readLocalStackFile(dataDir: string): Partial<LocalStackFile> | undefined {
  const file = fileIn(dataDir);
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalStackFile>)
    : undefined;
}
