import { loadOrCreateLocalCa } from '@svc/local-development';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fromEnv } from './settings';

export const LOOPBACK_CIDRS = ['127.0.0.0/8', '::1/128'];

/** The configuration that lets the local stack's engine deliver to `svc listen` on this machine. */
export interface LocalDeliveryPath {
  WEBHOOK_ALLOWED_PRIVATE_CIDRS: string;
  DELIVERY_EXTRA_CA_FILE: string;
  caCertFile: string;
}

/** The ranges given, plus loopback where they lack it. */
export function withLoopback(given: string | undefined): string {
  const ranges = (given ?? '')
    .split(',')
    .map((range) => range.trim())
    .filter(Boolean);
  return [...ranges, ...LOOPBACK_CIDRS.filter((range) => !ranges.includes(range))].join(',');
}

/**
 * Loopback endpoints allowed and the checkout's CA trusted, for the local stack only: outside
 * production mode, and never through any deployed configuration. A CA file the environment
 * already names stays trusted: the engine gets a bundle of both.
 */
export async function localDeliveryPath(
  env: NodeJS.ProcessEnv,
  dataDir: string,
): Promise<LocalDeliveryPath | undefined> {
  if (env.NODE_ENV === 'production') {
    return undefined;
  }
  const ca = await loadOrCreateLocalCa(dataDir);
  const extraCaFile = fromEnv(env, 'DELIVERY_EXTRA_CA_FILE');
  let trusted = ca.certFile;
  if (extraCaFile) {
    trusted = join(dirname(ca.certFile), 'engine-trusted-cas.pem');
    await writeFile(trusted, `${await readFile(extraCaFile, 'utf8')}\n${ca.certPem}`);
  }
  return {
    WEBHOOK_ALLOWED_PRIVATE_CIDRS: withLoopback(fromEnv(env, 'WEBHOOK_ALLOWED_PRIVATE_CIDRS')),
    DELIVERY_EXTRA_CA_FILE: trusted,
    caCertFile: ca.certFile,
  };
}
