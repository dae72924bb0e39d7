/**
 * What the bench must undo (child processes, streams, the database), run last-in first-out on
 * the way out: after success, after a failure, or on Ctrl-C. Each step is bounded in time and a
 * failing step does not stop the others.
 */
export class Cleanup {
  private readonly steps: { name: string; undo: () => Promise<unknown> }[] = [];
  private running: Promise<void> | undefined;
  /** Set on SIGINT/SIGTERM: the bench stops at the next step instead of measuring a dismantled setup. */
  interrupted = false;

  constructor(
    private readonly log: (message: string) => void,
    private readonly stepTimeoutMs = 20_000,
  ) {}

  add(name: string, undo: () => Promise<unknown>): void {
    this.steps.push({ name, undo });
  }

  /** Throws once a signal came, so that the bench goes no further. */
  check(): void {
    if (this.interrupted) {
      throw new Error('interrupted');
    }
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
      const { name, undo } = this.steps.pop()!;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          undo(),
          new Promise((_, fail) => {
            timer = setTimeout(() => fail(new Error('timed out')), this.stepTimeoutMs);
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
