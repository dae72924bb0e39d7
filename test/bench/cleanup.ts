/**
 * What the bench must undo (child processes, streams, the database), run last-in first-out on
 * the way out: after success, after a failure, or on Ctrl-C. Each step is bounded in time and a
 * failing step does not stop the others.
 */
export class Cleanup {
  private readonly steps: { name: string; undo: () => Promise<unknown>; timeoutMs: number }[] = [];
  private running: Promise<void> | undefined;
  /** Set on SIGINT/SIGTERM: the bench stops at the next step instead of measuring a dismantled setup. */
  interrupted = false;
  private parent: Cleanup | undefined;

  constructor(
    private readonly log: (message: string) => void,
    private readonly stepTimeoutMs = 20_000,
  ) {}

  add(name: string, undo: () => Promise<unknown>, timeoutMs = this.stepTimeoutMs): void {
    this.steps.push({ name, undo, timeoutMs });
  }

  /** Throws once a signal came, so that the bench goes no further. */
  check(): void {
    this.parent?.check();
    if (this.interrupted) {
      throw new Error('interrupted');
    }
  }

  /**
   * The undo steps of one part of the run (a scenario): run when that part ends, or with this
   * cleanup if it comes first. Its steps may take longer, as a part holds several.
   */
  child(name: string): Cleanup {
    const child = new Cleanup(this.log, this.stepTimeoutMs);
    child.parent = this;
    this.add(name, () => child.run(), this.stepTimeoutMs * 6);
    return child;
  }

  run(): Promise<void> {
    this.running ??= this.runAll();
    return this.running;
  }

  /** On the first signal: clean up and exit 130; a second one exits at once. */
  onSignals(signals: NodeJS.Signals[]): void {
    let received = false;
    for (const signal of signals) {
      process.on(signal, () => {
        if (received) {
          process.exit(130);
        }
        received = true;
        this.interrupted = true;
        this.log(`${signal}: cleaning up (again to quit at once)`);
        void this.run().finally(() => process.exit(130));
      });
    }
  }

  private async runAll(): Promise<void> {
    while (this.steps.length > 0) {
      const { name, undo, timeoutMs } = this.steps.pop()!;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          undo(),
          new Promise((_, fail) => {
            timer = setTimeout(() => fail(new Error('timed out')), timeoutMs);
          }),
        ]);
      } catch (error) {
        this.log(`cleanup of ${name} failed: ${(error as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    }
  }
}

/**
 * Runs a bench whose `main` prints its own figures: undoes its steps on the way out (after
 * success, a failure or Ctrl-C), and sets a failing exit code when it failed.
 */
export function runBench(
  log: (message: string) => void,
  main: (cleanup: Cleanup) => Promise<void>,
): void {
  const cleanup = new Cleanup(log);
  cleanup.onSignals(['SIGINT', 'SIGTERM']);
  main(cleanup)
    .then(() => cleanup.run())
    .catch(async (error: unknown) => {
      log(`failed: ${(error as Error).stack ?? String(error)}`);
      await cleanup.run();
      process.exitCode = 1;
    });
}
