import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../support/free-port';
import { noteStarted } from './leftovers';

/** The machine's nats-server (Debian: /usr/sbin/nats-server); NATS_SERVER_BIN elsewhere. */
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * A nats-server with JetStream of the fault suite's own: a free loopback port and a store in a
 * temporary folder, never the shared server. It can be killed (SIGKILL, as a crash) and started
 * again on the same port and store, which is what a restarted pod with a persistent volume does.
 */
export interface PrivateNats {
  url: string;
  port: number;
  /** The server's output (gone with the store after `close()`). */
  logFile: string;
  /** kill -9: the store keeps what was synced, clients see the connection drop. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and store; resolves once it accepts connections. */
  start(): Promise<void>;
  running(): boolean;
  /** Stops the server and removes its store. */
  close(): Promise<void>;
}

async function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startPrivateNats(): Promise<PrivateNats> {
  const folder = await mkdtemp(join(tmpdir(), 'svc-faults-nats-'));
  noteStarted({ kind: 'folder', folder });
  const port = await freePort();
  const log = createWriteStream(join(folder, 'server.log'), { flags: 'a' });
  let child: ChildProcess | undefined;

  const start = async () => {
    const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(folder, 'store')];
    const server = spawn(NATS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    noteStarted({
      kind: 'process',
      pid: server.pid!,
      commandLine: `${[NATS_SERVER, ...args].join('\0')}\0`,
    });
    server.stdout.pipe(log, { end: false });
    server.stderr.pipe(log, { end: false });
    child = server;
    const deadline = Date.now() + 20_000;
    while (!(await portAccepts(port))) {
      if (server.exitCode !== null || server.signalCode !== null) {
        throw new Error(`nats-server exited at start (${server.exitCode}); see ${folder}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`nats-server did not listen on ${port} within 20 s`);
      }
      await sleep(50);
    }
  };

  const stopChild = async (signal: NodeJS.Signals) => {
    const server = child;
    child = undefined;
    if (!server || server.exitCode !== null || server.signalCode !== null) {
      return;
    }
    const exited = once(server, 'exit');
    server.kill(signal);
    await exited;
  };

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    logFile: join(folder, 'server.log'),
    kill: () => stopChild('SIGKILL'),
    start,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    close: async () => {
      await stopChild('SIGTERM');
      log.end();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
