import { ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import type {
  PortBehaviour,
  ReceiverCommand,
  ReceiverReply,
  ReceiverStats,
} from './receiver-protocol';

/** The receiver process (bench-receiver.ts) as the bench drives it. */
export class ReceiverProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly ports: number[],
  ) {}

  static async start(servers: number): Promise<ReceiverProcess> {
    const child = fork(resolve(__dirname, 'bench-receiver.js'), [String(servers)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ports = await new Promise<number[]>((done, fail) => {
      const onExit = (code: number | null) =>
        fail(new Error(`the bench receiver exited (${code}) before listening`));
      child.once('exit', onExit);
      child.once('error', fail);
      child.on('message', (reply: ReceiverReply) => {
        if (reply.type === 'ready') {
          child.off('exit', onExit);
          done(reply.ports);
        }
      });
    });
    return new ReceiverProcess(child, ports);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * How ports answer from now on, by port index (the others answer 200 at once). Messages over
   * one IPC channel arrive in order, so the next request the bench makes sees it.
   */
  configure(behaviours: Record<number, PortBehaviour>): void {
    this.send({ type: 'configure', behaviours });
  }

  /** Starts counting afresh; with `windowMs`, the stats hold latencies per window of arrival. */
  phase(name: string, windowMs?: number): void {
    this.send({ type: 'phase', name, ...(windowMs !== undefined ? { windowMs } : {}) });
  }

  /** Resolves with the Date.now() at which the phase's `count`-th counted first attempt arrived. */
  reached(count: number, timeoutMs: number): Promise<number> {
    return this.ask({ type: 'expect', count }, timeoutMs, (reply) =>
      reply.type === 'reached' ? reply.at : undefined,
    );
  }

  stats(): Promise<ReceiverStats> {
    return this.ask({ type: 'stats' }, 10_000, (reply) =>
      reply.type === 'stats' ? reply.stats : undefined,
    );
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      return;
    }
    const exited = new Promise((done) => this.child.once('exit', done));
    this.child.kill('SIGTERM');
    await exited;
  }

  private send(command: ReceiverCommand): void {
    this.child.send(command);
  }

  private ask<T>(
    command: ReceiverCommand,
    timeoutMs: number,
    pick: (reply: ReceiverReply) => T | undefined,
  ): Promise<T> {
    return new Promise<T>((done, fail) => {
      const finish = () => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
      };
      const onMessage = (reply: ReceiverReply) => {
        const value = pick(reply);
        if (value !== undefined) {
          finish();
          done(value);
        }
      };
      const onExit = () => {
        finish();
        fail(new Error('the bench receiver exited'));
      };
      const timer = setTimeout(() => {
        finish();
        fail(new Error(`the bench receiver did not answer ${command.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.send(command);
    });
  }
}
