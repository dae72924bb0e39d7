import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc times are in these ticks. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system, all threads) a process has used so far; NaN once it is gone. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Process ids whose command name is `command` (e.g. every `postgres` backend). */
export function pidsNamed(command: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === command) {
        pids.push(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Memory of a process from /proc/<pid>/status, in MiB: peak (VmHWM) and current (VmRSS). */
export function memoryOf(pid: number): { peakRssMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { peakRssMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
}

export type CpuGroups = Record<string, () => number>;

/** CPU used by groups of processes between two moments. */
export class CpuMeter {
  private readonly start: Record<string, number>;
  private readonly startedAt = performance.now();

  constructor(private readonly groups: CpuGroups) {
    this.start = Object.fromEntries(Object.entries(groups).map(([name, read]) => [name, read()]));
  }

  /** Cores used on average by each group since the meter started (1.0 = one core busy). */
  coresUsed(): Record<string, number> {
    const seconds = (performance.now() - this.startedAt) / 1000;
    return Object.fromEntries(
      Object.entries(this.groups).map(([name, read]) => [
        name,
        (read() - this.start[name]) / seconds,
      ]),
    );
  }
}

/** The groups the bench watches: its own process, the receiver, the engine, PostgreSQL and NATS. */
export function benchCpuGroups(pids: { receiver: number; engine?: number }): CpuGroups {
  const sumOf = (command: string) => () =>
    pidsNamed(command)
      .map(cpuSecondsOf)
      .filter((value) => !Number.isNaN(value))
      .reduce((total, value) => total + value, 0);
  const groups: CpuGroups = {
    bench: () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1e6;
    },
    receiver: () => cpuSecondsOf(pids.receiver),
    postgres: sumOf('postgres'),
    nats: sumOf('nats-server'),
  };
  if (pids.engine !== undefined) {
    const engine = pids.engine;
    groups.engine = () => cpuSecondsOf(engine);
  }
  return groups;
}
