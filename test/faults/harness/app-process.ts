import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, WriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { noteStarted } from './leftovers';

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A built app (`node dist/apps/<app>/src/main.js`) as a process of its own, its output appended
 * to a log file (the scenario's folder), so that a test can kill -9 it or send it SIGTERM and
 * read what it said.
 */
export class AppProcess {
  readonly startedAt = Date.now();
  private readonly child: ChildProcess;
  private readonly exit: Promise<ExitStatus>;
  private readonly log: WriteStream;
  private tail = '';

  constructor(
    readonly name: string,
    script: string,
    env: NodeJS.ProcessEnv,
    options: { cwd: string; logFile: string },
  ) {
    this.log = createWriteStream(options.logFile, { flags: 'a' });
    this.child = spawn(process.execPath, [script], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    noteStarted({
      kind: 'process',
      pid: this.child.pid!,
      commandLine: `${process.execPath}\0${script}\0`,
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      stream.on('data', (chunk: Buffer) => {
        this.log.write(chunk);
        // The last lines, for the message of a failure.
        this.tail = (this.tail + chunk.toString()).slice(-4000);
      });
    }
    this.exit = (once(this.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>).then(
      ([code, signal]) => {
        this.log.end();
        return { code, signal };
      },
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last few kilobytes the process printed. */
  output(): string {
    return this.tail;
  }

  exited(): Promise<ExitStatus> {
    return this.exit;
  }

  /** Polls `url` until it answers 200; fails at once if the process dies. */
  async waitForHttp(url: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) {
        throw new Error(`${this.name} exited while starting:\n${this.tail}`);
      }
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.ok) {
          return;
        }
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`${this.name} did not answer ${url} within ${timeoutMs} ms:\n${this.tail}`);
  }

  /** kill -9, and waits until the process is gone. */
  async kill(): Promise<ExitStatus> {
    if (this.running) {
      this.child.kill('SIGKILL');
    }
    return this.exit;
  }

  /** SIGTERM (a graceful stop); SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs = 30_000): Promise<ExitStatus> {
    if (!this.running) {
      return this.exit;
    }
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const status = await this.exit;
    clearTimeout(timer);
    return status;
  }
}
