import { connect } from '@nats-io/transport-node';
import { ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { RecentOutput } from './recent-output';
import { LocalStackError } from './settings';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/** True when a NATS server completes a client handshake at `url`. */
export async function natsAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const connection = await connect({ servers: url, timeout: timeoutMs, reconnect: false });
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Looks on PATH, then in the sbin folders, because Debian installs nats-server in /usr/sbin,
 * which is not on an ordinary user's PATH.
 */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const folders = [...(env.PATH ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const folder of folders.filter((entry) => entry.length > 0)) {
    const candidate = join(folder, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) {
        return candidate;
      }
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

export interface NatsServerOptions {
  binary: string;
  port: number;
  storeDir: string;
  logger: Logger;
}

/**
 * A nats-server child with JetStream, for machines without one running. Call stop() even while
 * start() is still waiting: it ends the child either way.
 */
export class NatsServerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly output = new RecentOutput();
  // A launcher that crashes must not leave the server behind; kill() is synchronous, as 'exit' needs.
  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  constructor(private readonly options: NatsServerOptions) {}

  get url(): string {
    return `nats://127.0.0.1:${this.options.port}`;
  }

  async start(): Promise<string> {
    const { binary, port, storeDir, logger } = this.options;
    await mkdir(storeDir, { recursive: true });
    // Its own process group, so Ctrl-C in a terminal leaves it to the launcher to stop after the apps.
    const child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    process.on('exit', this.killOnExit);
    let running = true;
    this.exited = new Promise((resolve) => {
      const done = () => {
        running = false;
        process.removeListener('exit', this.killOnExit);
        resolve();
      };
      child.once('exit', done);
      child.once('error', (error) => {
        this.output.add(error.message);
        done();
      });
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        this.output.add(chunk);
        logger.debug({ output: chunk.trimEnd() }, 'nats-server');
      });
    }

    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (running && Date.now() < deadline) {
      if (await natsAnswers(this.url, 500)) {
        if (running) {
          return this.url;
        }
        break;
      }
      await sleep(100);
    }
    await this.stop();
    throw new LocalStackError(
      `nats-server (${binary}) did not come up on port ${port} ` +
        `(set LOCAL_NATS_PORT for another port, or NATS_URL to use your own server):\n${this.output.toString()}`,
    );
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }
}
