import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface LocalStackFile {
  databaseUrl: string;
  natsUrl: string;
}

/**
 * The admin CLI reads .data/local-stack.json (see apps/cli/src/cli-context.ts) to find the
 * embedded database without being told. It holds the database password, hence mode 0600.
 */
export async function writeLocalStackFile(dataDir: string, content: LocalStackFile): Promise<void> {
  // With DATABASE_URL and SECRET_ENCRYPTION_KEY given, nothing else has made the folder yet.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(join(dataDir, 'local-stack.json'), `${JSON.stringify(content, null, 2)}\n`, {
    mode: 0o600,
  });
}
