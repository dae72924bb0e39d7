import ms from 'ms';
import { resolve } from 'node:path';

/** This checkout. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/**
 * Where the built apps (`dist/apps/...`) are run from: this checkout, or another build of the
 * project (`FAULTS_APPS_ROOT`, e.g. a release or the last commit, built there), which the suite
 * then does not compile.
 */
export const APPS_ROOT = process.env.FAULTS_APPS_ROOT
  ? resolve(process.env.FAULTS_APPS_ROOT)
  : REPO_ROOT;

/** Where each scenario's JSON result, the run's `latest.json` and the processes' logs go. */
export const RESULTS_DIR = resolve(
  REPO_ROOT,
  process.env.FAULTS_RESULTS_DIR ?? 'test/faults/results',
);

function duration(name: string, fallback: string): number {
  const text = process.env[name] ?? fallback;
  const value = ms(text as ms.StringValue);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new Error(`${name}: "${text}" is not a duration (e.g. 90s, 10m)`);
  }
  return value;
}

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name}: "${process.env[name]}" is not a positive number`);
  }
  return value;
}

/** What a person may change from the command line (test/faults/README.md lists them). */
export const FAULT_SETTINGS = {
  /** How long the soak runs. */
  soakMs: duration('FAULTS_SOAK', '10m'),
  /** Events per second during the soak. */
  soakRate: positive('FAULTS_SOAK_RATE', 20),
  /** How long PostgreSQL stays stopped in its scenario. */
  postgresStopMs: duration('FAULTS_PG_STOP', '60s'),
  /** How long a scenario may take to settle after its last fault before it is judged as it is. */
  settleTimeoutMs: duration('FAULTS_SETTLE_TIMEOUT', '120s'),
};
