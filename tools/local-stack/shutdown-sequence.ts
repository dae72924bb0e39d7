import type { Logger } from 'pino';

interface Step {
  name: string;
  stop: () => Promise<unknown>;
}

/** Long enough for apps to finish in-flight requests; short enough that Ctrl-C still ends. */
const STEP_TIMEOUT_MS = 15_000;

/**
 * What start-up brought up, stopped in reverse order: apps before NATS before PostgreSQL, so
 * nothing loses a dependency while it is still closing. A step that fails or hangs is logged and
 * skipped, so one stuck part never keeps the others running.
 */
export class ShutdownSequence {
  private readonly steps: Step[] = [];
  private running: Promise<boolean> | undefined;

  add(name: string, stop: () => Promise<unknown>): void {
    this.steps.push({ name, stop });
  }

  get started(): boolean {
    return this.running !== undefined;
  }

  /** Runs once, however many callers ask; resolves true when every step stopped cleanly. */
  run(logger: Logger): Promise<boolean> {
    this.running ??= this.runSteps(logger);
    return this.running;
  }

  private async runSteps(logger: Logger): Promise<boolean> {
    let clean = true;
    while (this.steps.length > 0) {
      const step = this.steps.pop() as Step;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`did not stop within ${STEP_TIMEOUT_MS / 1000} s`)),
          STEP_TIMEOUT_MS,
        );
      });
      try {
        await Promise.race([step.stop(), timeout]);
        logger.info(`stopped ${step.name}`);
      } catch (error) {
        clean = false;
        logger.error({ err: error }, `could not stop ${step.name}`);
      } finally {
        clearTimeout(timer);
      }
    }
    return clean;
  }
}
