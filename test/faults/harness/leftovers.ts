import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './settings';

/**
 * What the suite started that outlives a killed run (Ctrl-C, a CI timeout): the engines, the API
 * and nats-server are its children, PostgreSQL is a daemon of `pg_ctl`. Each is noted here when
 * started; the next run's global setup ends those still there (a process only if its command
 * line is still the one noted, so a reused pid is left alone) and removes their folders.
 */
const REGISTER = join(RESULTS_DIR, '.started-processes');

type Started =
  | { kind: 'process'; pid: number; commandLine: string }
  /** A private cluster's folder (its data in `data/`), or any other temporary folder. */
  | { kind: 'postgres' | 'folder'; folder: string };

/** The run that started it: while that process lives (a run going on meanwhile), it is its own. */
type Owned = Started & { owner: number; ownerCommandLine: string };

/** Notes what this run started, under this process (the Jest process running the scenarios). */
export function noteStarted(entry: Started): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const owned: Owned = {
    ...entry,
    owner: process.pid,
    ownerCommandLine: commandLineOf(process.pid),
  };
  appendFileSync(REGISTER, `${JSON.stringify(owned)}\n`);
}

export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Ends what an earlier run left behind; returns what it did, for the log. */
export function removeLeftovers(): string[] {
  if (!existsSync(REGISTER)) {
    return [];
  }
  const done: string[] = [];
  const entries = readFileSync(REGISTER, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Owned);
  const running = (entry: Owned) => commandLineOf(entry.owner) === entry.ownerCommandLine;
  // Processes first, then the folders they were using.
  const order = (entry: Owned) => (entry.kind === 'process' ? 0 : 1);
  const orphaned = entries.filter((e) => !running(e)).sort((a, b) => order(a) - order(b));
  for (const entry of orphaned) {
    if (entry.kind === 'process') {
      if (commandLineOf(entry.pid) === entry.commandLine && entry.commandLine !== '') {
        process.kill(entry.pid, 'SIGKILL');
        done.push(`killed ${entry.pid} (${entry.commandLine.split('\0').join(' ')})`);
      }
    } else if (existsSync(entry.folder)) {
      const postmaster = join(entry.folder, 'data', 'postmaster.pid');
      if (entry.kind === 'postgres' && existsSync(postmaster)) {
        const pid = Number(readFileSync(postmaster, 'utf8').split('\n')[0]);
        if (commandLineOf(pid).includes(entry.folder)) {
          // SIGQUIT is PostgreSQL's immediate shutdown: its backends and shared memory go too.
          process.kill(pid, 'SIGQUIT');
          waitUntilGone(pid);
          done.push(`stopped the PostgreSQL of ${entry.folder}`);
        }
      }
      rmSync(entry.folder, { recursive: true, force: true });
      done.push(`removed ${entry.folder}`);
    }
  }
  const kept = entries.filter(running);
  writeFileSync(REGISTER, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  return done;
}

function waitUntilGone(pid: number): void {
  for (let i = 0; i < 100 && commandLineOf(pid) !== ''; i += 1) {
    execFileSync('sleep', ['0.1']);
  }
}
