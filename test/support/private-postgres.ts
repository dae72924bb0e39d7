import { execFile } from 'node:child_process';
import { chmod, chown, copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the suite's own (the machine's binaries, `initdb` in a temporary
 * folder, a free loopback port), for what the shared server cannot show: TLS, restarts, a stop.
 * As root it runs as the `postgres` user, since PostgreSQL refuses to run as root.
 */
export interface PrivatePostgres {
  port: number;
  /** The server's log (gone with the folder after `stop()`). */
  logFile: string;
  /** A URL of the cluster's `postgres` database (or `database`), with `query` appended as given. */
  url(options?: { database?: string; query?: string }): string;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
  /**
   * Stops the server and keeps its data, for a later `startServer()` on the same port: `fast`
   * ends the sessions and shuts down cleanly, `immediate` as a crash would (recovery at start).
   */
  stopServer(mode?: 'fast' | 'immediate'): Promise<void>;
  startServer(): Promise<void>;
}

export interface PrivatePostgresOptions {
  /** Serve TLS with this certificate and key (PEM files; copied, since the key must be 0600). */
  tls?: { certFile: string; keyFile: string };
}

export async function binDirectory(): Promise<string> {
  if (process.env.PG_BIN) {
    return process.env.PG_BIN;
  }
  const versions = (await readdir('/usr/lib/postgresql')).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) {
    throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (set PG_BIN)');
  }
  return join('/usr/lib/postgresql', versions[0], 'bin');
}

export async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) {
    return undefined;
  }
  const [uid, gid] = await Promise.all(
    ['-u', '-g'].map(async (flag) => Number((await run('id', [flag, 'postgres'])).stdout.trim())),
  );
  return { uid, gid };
}

export async function startPrivatePostgres(
  options: PrivatePostgresOptions = {},
): Promise<PrivatePostgres> {
  const bin = await binDirectory();
  const user = await postgresUser();
  const folder = await mkdtemp(join(tmpdir(), 'svc-private-pg-'));
  const as = user ? { uid: user.uid, gid: user.gid, cwd: folder } : { cwd: folder };
  if (user) {
    await chown(folder, user.uid, user.gid);
  }
  const data = join(folder, 'data');
  await run(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    as,
  );
  const settings = [
    `-c listen_addresses=127.0.0.1`,
    `-c unix_socket_directories=${folder}`,
    '-c fsync=off',
    '-c full_page_writes=off',
  ];
  if (options.tls) {
    const cert = join(folder, 'server.pem');
    const key = join(folder, 'server-key.pem');
    await copyFile(options.tls.certFile, cert);
    await copyFile(options.tls.keyFile, key);
    await chmod(key, 0o600);
    if (user) {
      await chown(cert, user.uid, user.gid);
      await chown(key, user.uid, user.gid);
    }
    settings.push('-c ssl=on', `-c ssl_cert_file=${cert}`, `-c ssl_key_file=${key}`);
  }
  const port = await freePort();
  const startServer = async () => {
    await run(
      join(bin, 'pg_ctl'),
      [
        '-D',
        data,
        '-l',
        join(folder, 'server.log'),
        '-w',
        '-t',
        '30',
        '-o',
        `-p ${port} ${settings.join(' ')}`,
        'start',
      ],
      as,
    );
  };
  await startServer();
  return {
    port,
    logFile: join(folder, 'server.log'),
    url: ({ database = 'postgres', query } = {}) =>
      `postgres://postgres@127.0.0.1:${port}/${database}${query ? `?${query}` : ''}`,
    stop: async () => {
      await run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], as).catch(
        () => undefined,
      );
      await rm(folder, { recursive: true, force: true });
    },
    stopServer: async (mode = 'fast') => {
      await run(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop'], as);
    },
    startServer,
  };
}
