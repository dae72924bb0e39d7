import { execFile } from 'node:child_process';
import { appendFile, chown, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from '../../support/free-port';
import { binDirectory, PrivatePostgres, postgresUser } from '../../support/private-postgres';
import { noteStarted } from './leftovers';
import { TcpForwarder } from './tcp-forwarder';

const run = promisify(execFile);

/** The standby's `application_name`, what `synchronous_standby_names` names. */
export const STANDBY_NAME = 'standby1';

export interface PostgresPairOptions {
  /**
   * `synchronous_standby_names` names the standby on the primary (`synchronous_commit` stays
   * `on`: a commit returns once the standby has flushed its WAL); otherwise replication is
   * asynchronous, PostgreSQL's default.
   */
  synchronous: boolean;
  /** Where `stop()` copies both servers' logs (`postgres-primary.log`, `postgres-standby.log`). */
  keepLogsIn?: string;
}

/** pg_stat_replication's row of the standby, as the primary sees it. */
export interface ReplicationState {
  state: string;
  syncState: string;
  /** Bytes of WAL the primary has written that the standby has not replayed. */
  replayLagBytes: number;
}

/**
 * A primary and a streaming standby (`pg_basebackup -R`), each a cluster of its own in a
 * temporary folder, as `startPrivatePostgres` makes one. The apps reach whichever is primary
 * through `front` (a forwarder, as a Kubernetes Service), and the standby streams from the primary
 * through `replicationLink` (a forwarder the scenario can pause: a standby falling behind).
 *
 * `fsync=off` as in every private cluster: the old primary is stopped with `immediate` and never
 * used again, and the standby is promoted, not crashed, so what the OS cache holds is never what
 * is judged. `synchronous_commit = on` waits for the standby's flush, which with fsync off is its
 * write: the same thing here, since the standby's machine does not crash.
 */
export interface PostgresPair extends PrivatePostgres {
  readonly synchronous: boolean;
  readonly primaryPort: number;
  readonly standbyPort: number;
  readonly front: TcpForwarder;
  readonly replicationLink: TcpForwarder;
  /** The server the front sends connections to: `primary` until `switchToStandby()`. */
  readonly serving: 'primary' | 'standby';
  /** Until the primary shows the standby `streaming` (and `sync` when synchronous). */
  waitUntilStreaming(timeoutMs?: number): Promise<ReplicationState>;
  replicationState(): Promise<ReplicationState | null>;
  /** `pg_ctl stop -m immediate` on the primary: its backends die at once, as on a lost node. */
  stopPrimaryHard(): Promise<void>;
  /** `pg_ctl promote -w` on the standby: resolves once it takes writes. */
  promoteStandby(): Promise<void>;
  /** The front sends new connections to the standby and ends the open ones. */
  switchToStandby(): void;
}

interface Cluster {
  folder: string;
  data: string;
  port: number;
  logFile: string;
  as: { uid?: number; gid?: number; cwd: string };
  /** Its own settings, given at every start. */
  settings: string[];
}

async function newCluster(): Promise<Cluster> {
  const user = await postgresUser();
  const folder = await mkdtemp(join(tmpdir(), 'svc-private-pg-'));
  // Noted before anything runs in it: a run killed from here on leaves nothing behind.
  noteStarted({ kind: 'postgres', folder });
  if (user) {
    await chown(folder, user.uid, user.gid);
  }
  return {
    folder,
    data: join(folder, 'data'),
    port: await freePort(),
    logFile: join(folder, 'server.log'),
    as: user ? { uid: user.uid, gid: user.gid, cwd: folder } : { cwd: folder },
    settings: [],
  };
}

async function pgCtl(bin: string, cluster: Cluster, args: string[]): Promise<void> {
  await run(join(bin, 'pg_ctl'), ['-D', cluster.data, ...args], cluster.as);
}

async function startCluster(bin: string, cluster: Cluster): Promise<void> {
  const options = [
    `-p ${cluster.port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${cluster.folder}`,
    '-c fsync=off',
    ...cluster.settings,
  ];
  await pgCtl(bin, cluster, [
    '-l',
    cluster.logFile,
    '-w',
    '-t',
    '60',
    '-o',
    options.join(' '),
    'start',
  ]);
}

async function query<T>(port: number, text: string): Promise<T[]> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 3000,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts the pair and waits until the standby streams (`sync` when synchronous). Both folders
 * are noted in the leftovers register as they are made.
 */
export async function startPostgresPair(options: PostgresPairOptions): Promise<PostgresPair> {
  const bin = await binDirectory();
  const primary = await newCluster();
  const standby = await newCluster();
  let front: TcpForwarder | undefined;
  let link: TcpForwarder | undefined;
  const stopAll = async () => {
    await front?.close().catch(() => undefined);
    await link?.close().catch(() => undefined);
    for (const cluster of [standby, primary]) {
      await pgCtl(bin, cluster, ['-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    }
  };
  try {
    await run(
      join(bin, 'initdb'),
      [
        '-D',
        primary.data,
        '-U',
        'postgres',
        // trust for every local and 127.0.0.1 connection, replication included (initdb's
        // pg_hba.conf has `host replication all 127.0.0.1/32` lines).
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--locale=C',
        '--no-sync',
      ],
      primary.as,
    );
    primary.settings = [
      '-c wal_level=replica',
      '-c max_wal_senders=5',
      ...(options.synchronous ? [`-c synchronous_standby_names=${STANDBY_NAME}`] : []),
    ];
    await startCluster(bin, primary);
    link = await TcpForwarder.start(primary.port);
    front = await TcpForwarder.start(primary.port);
    // -X stream: the WAL written during the copy comes with it; the standby then streams from
    // the primary through the link (its primary_conninfo, with the name the primary knows it by).
    await run(
      join(bin, 'pg_basebackup'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        standby.data,
        '-X',
        'stream',
        '-R',
        '--no-sync',
        '-c',
        'fast',
      ],
      standby.as,
    );
    await appendFile(
      join(standby.data, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=127.0.0.1 port=${link.port} user=postgres application_name=${STANDBY_NAME}'\n`,
    );
    await startCluster(bin, standby);
  } catch (error) {
    await stopAll();
    await rm(primary.folder, { recursive: true, force: true });
    await rm(standby.folder, { recursive: true, force: true });
    throw error;
  }
  const frontForwarder = front;
  const linkForwarder = link;
  let serving: 'primary' | 'standby' = 'primary';

  const replicationState = async (): Promise<ReplicationState | null> => {
    const rows = await query<{ state: string; sync_state: string; lag: string | null }>(
      primary.port,
      `SELECT state, sync_state,
              pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint::text AS lag
         FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`,
    );
    return rows[0]
      ? {
          state: rows[0].state,
          syncState: rows[0].sync_state,
          replayLagBytes: Number(rows[0].lag ?? NaN),
        }
      : null;
  };

  const pair: PostgresPair = {
    synchronous: options.synchronous,
    primaryPort: primary.port,
    standbyPort: standby.port,
    front: frontForwarder,
    replicationLink: linkForwarder,
    get serving() {
      return serving;
    },
    port: frontForwarder.port,
    logFile: primary.logFile,
    url: ({ database = 'postgres', query: search } = {}) =>
      `postgres://postgres@127.0.0.1:${frontForwarder.port}/${database}${search ? `?${search}` : ''}`,
    replicationState,
    async waitUntilStreaming(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      const wanted = options.synchronous ? 'sync' : 'async';
      for (;;) {
        const state = await replicationState().catch(() => null);
        if (state?.state === 'streaming' && state.syncState === wanted) {
          return state;
        }
        if (Date.now() > deadline) {
          throw new Error(
            `the standby is not streaming (${wanted}) after ${timeoutMs} ms: ${JSON.stringify(state)}`,
          );
        }
        await sleep(200);
      }
    },
    async stopPrimaryHard() {
      await pgCtl(bin, primary, ['-m', 'immediate', '-w', '-t', '60', 'stop']);
    },
    async promoteStandby() {
      await pgCtl(bin, standby, ['-w', '-t', '60', 'promote']);
    },
    switchToStandby() {
      serving = 'standby';
      frontForwarder.switchTo(standby.port);
    },
    // The server behind the front, stopped and started in place (as a restart of that pod).
    async stopServer(mode = 'fast') {
      await pgCtl(bin, serving === 'primary' ? primary : standby, [
        '-m',
        mode,
        '-w',
        '-t',
        '60',
        'stop',
      ]);
    },
    async startServer() {
      await startCluster(bin, serving === 'primary' ? primary : standby);
    },
    async stop() {
      await stopAll();
      if (options.keepLogsIn) {
        await mkdir(options.keepLogsIn, { recursive: true }).catch(() => undefined);
        await copyFile(primary.logFile, join(options.keepLogsIn, 'postgres-primary.log')).catch(
          () => undefined,
        );
        await copyFile(standby.logFile, join(options.keepLogsIn, 'postgres-standby.log')).catch(
          () => undefined,
        );
      }
      await rm(primary.folder, { recursive: true, force: true });
      await rm(standby.folder, { recursive: true, force: true });
    },
  };
  try {
    await pair.waitUntilStreaming();
  } catch (error) {
    await pair.stop();
    throw error;
  }
  return pair;
}
