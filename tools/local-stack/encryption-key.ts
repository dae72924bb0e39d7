import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LocalStackError } from './settings';

function isKey(value: string): boolean {
  return Buffer.from(value, 'base64').length === 32;
}

/**
 * Returns the key kept in `file`, creating it on first use. A key of its own per checkout keeps
 * webhook secrets readable across restarts without falling back to the public development key.
 */
export async function loadOrCreateEncryptionKey(file: string): Promise<string> {
  const existing = await readKeyFile(file);
  if (existing !== undefined) {
    return existing;
  }
  const key = randomBytes(32).toString('base64');
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another launcher created it in the meantime: its key wins, or the two would disagree.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return loadOrCreateEncryptionKey(file);
    }
    throw error;
  }
  return key;
}

async function readKeyFile(file: string): Promise<string | undefined> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
  const key = content.trim();
  if (!isKey(key)) {
    throw new LocalStackError(
      `${file} does not hold a 32-byte base64 key; fix it or delete it to generate a new one (webhook secrets stored with the old key then become unreadable)`,
    );
  }
  return key;
}
