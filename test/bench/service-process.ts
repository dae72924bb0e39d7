import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Cleanup } from './cleanup';

import { freePort } from '../support/free-port';

export { freePort };

/**
 * One of the built apps (`node dist/apps/<app>/src/main.js`) as a process of its own, so that its
 * CPU and memory are its own. Its output is passed through with a prefix, so warnings show.
 */
export class ServiceProcess {
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    script: string,
    env: NodeJS.ProcessEnv,
    options: { cwd: string; nodeArgs?: string[] },
  ) {
    this.child = spawn(process.execPath, [...(options.nodeArgs ?? []), script], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (pending + chunk).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          process.stderr.write(`[${name}] ${line}\n`);
        }
      });
    }
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Polls `url` until it answers 200; fails early if the process dies. */
  async waitForHttp(url: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) {
        throw new Error(`${this.name} exited with code ${this.child.exitCode} while starting`);
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
    throw new Error(`${this.name} did not answer ${url} within ${timeoutMs} ms`);
  }

  /** SIGTERM (a graceful shutdown), then SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs = 15_000): Promise<number | null> {
    if (!this.running) {
      return this.exited;
    }
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** For the last-ditch cleanup on Ctrl-C: no waiting. */
  kill(): void {
    if (this.running) {
      this.child.kill('SIGKILL');
    }
  }
}

/**
 * A built HTTP app (`api` or `auth`) as its own process on `port` (and a free management port),
 * stopped by `cleanup`, once its /readyz answers on the management port.
 */
export async function startBuiltApp(
  app: 'api' | 'auth',
  port: number,
  env: NodeJS.ProcessEnv,
  repoRoot: string,
  cleanup: Cleanup,
): Promise<ServiceProcess> {
  const managementPort = await freePort();
  const service = new ServiceProcess(
    app,
    resolve(repoRoot, `dist/apps/${app}/src/main.js`),
    {
      ...env,
      [`${app.toUpperCase()}_PORT`]: String(port),
      [`${app.toUpperCase()}_MANAGEMENT_PORT`]: String(managementPort),
    },
    { cwd: repoRoot },
  );
  cleanup.add(app, () => service.stop());
  await service.waitForHttp(`http://127.0.0.1:${managementPort}/readyz`, 30_000);
  return service;
}
