/** Where the end-to-end suites find PostgreSQL and NATS (real servers, never mocks). */
export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** Every database of the suites is named `svc_e2e_<run>_...`; a run is one `jest` invocation. */
export const TEST_DATABASE_PREFIX = 'svc_e2e_';
const RUN_VARIABLE = 'SVC_E2E_RUN';
/** Databases of runs older than this are leftovers of killed runs and are dropped. */
export const STALE_RUN_SECONDS = 6 * 3600;

/** A run id starts with its start time, so that leftovers can be recognised by age. */
export function newRunId(nowSeconds: number, random: string): string {
  return `${nowSeconds.toString(36)}x${random}`;
}

export function runStartedAt(runId: string): number | null {
  const match = /^([0-9a-z]+)x[0-9a-f]+$/.exec(runId);
  return match ? parseInt(match[1], 36) : null;
}

/** Global setup exports the run id to the workers through the environment. */
export function currentRunId(): string {
  const run = process.env[RUN_VARIABLE];
  if (!run) {
    throw new Error(`${RUN_VARIABLE} is unset: the e2e global setup did not run`);
  }
  return run;
}

export function hasCurrentRunId(): boolean {
  return Boolean(process.env[RUN_VARIABLE]);
}

export function setCurrentRunId(run: string): void {
  process.env[RUN_VARIABLE] = run;
}

export const templateDatabase = (run: string) => `${TEST_DATABASE_PREFIX}${run}_template`;

export function databaseUrl(database: string): string {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
}
