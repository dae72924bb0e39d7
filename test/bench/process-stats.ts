import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc times are in these ticks. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system, all threads) a process has used so far, or only its system
 * (kernel) part; NaN once it is gone.
 */
export function cpuSecondsOf(pid: number, part: 'all' | 'system' = 'all'): number {
  const fields = statFields(pid);
  if (!fields) {
    return NaN;
  }
  const system = Number(fields[12]);
  return (part === 'system' ? system : Number(fields[11]) + system) / TICKS_PER_SECOND;
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

/**
 * CPU seconds used so far by a group of processes, per process id. An entry under a negative id
 * is what the parent of that (positive) id has collected from its children that ended (see
 * postgresCpu): the whole life of each, so a process of the group that was there at the start
 * and has ended is counted from its start value by cpuSecondsSince, not twice.
 */
export type CpuGroups = Record<string, () => Map<number, number>>;

/**
 * CPU seconds a group used between two readings of it. A process that started meanwhile counts
 * whole. One that ended meanwhile counts only if the group reads its parent's ended children
 * (a negative id): then what it had used before the first reading is taken off again.
 */
export function cpuSecondsSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) {
    total += seconds - (before.get(pid) ?? 0);
  }
  if ([...after.keys()].some((pid) => pid < 0)) {
    for (const [pid, seconds] of before) {
      if (pid > 0 && !after.has(pid)) {
        total -= seconds;
      }
    }
  }
  return total;
}

/**
 * CPU used by groups of processes between two moments, per group as cpuSecondsSince counts it.
 */
export class CpuMeter {
  private readonly start: Record<string, Map<number, number>>;
  private readonly machineStart = machineTicks();
  private readonly startedAt = performance.now();

  constructor(private readonly groups: CpuGroups) {
    this.start = Object.fromEntries(Object.entries(groups).map(([name, read]) => [name, read()]));
  }

  /**
   * Cores used on average by each group since the meter started (1.0 = one core busy; a
   * ` (kernel)` entry is the system part of the group before it, not more), plus
   * `other`: what the rest of the machine used meanwhile (other processes, interrupts), and
   * `steal`: time the hypervisor gave to other machines.
   */
  coresUsed(): Record<string, number> {
    const seconds = (performance.now() - this.startedAt) / 1000;
    const used: Record<string, number> = Object.fromEntries(
      Object.entries(this.groups).map(([name, read]) => {
        return [name, cpuSecondsSince(this.start[name], read()) / seconds];
      }),
    );
    const machine = machineTicks();
    const ours = Object.entries(used)
      .filter(([name]) => !name.endsWith(' (kernel)'))
      .reduce((total, [, value]) => total + value, 0);
    const busy = (machine.busy - this.machineStart.busy) / TICKS_PER_SECOND / seconds;
    used.other = Math.max(0, busy - ours);
    used.steal = (machine.steal - this.machineStart.steal) / TICKS_PER_SECOND / seconds;
    return used;
  }
}

/** Busy and stolen ticks of all CPUs together, from the first line of /proc/stat. */
function machineTicks(): { busy: number; steal: number } {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { busy: user + nice + system + irq + softirq, steal };
}

/**
 * CPU seconds so far of every PostgreSQL process, and (under the postmaster's id, negated) of
 * those that have ended: autovacuum workers and closed connections come and go within a run,
 * and counting only the live ones made PostgreSQL's figure depend on which were alive when it
 * was read. The postmaster collects each ended child's CPU (cutime and cstime in
 * /proc/<pid>/stat).
 */
export function postgresCpu(): Map<number, number> {
  const pids = pidsNamed('postgres');
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    const fields = statFields(pid);
    if (!fields) {
      continue;
    }
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    cpu.set(pid, (utime + stime) / TICKS_PER_SECOND);
    if (!pids.includes(Number(fields[1]))) {
      cpu.set(-pid, (cutime + cstime) / TICKS_PER_SECOND);
    }
  }
  return cpu;
}

/**
 * The fields of /proc/<pid>/stat after the command name (which is in parentheses and may hold
 * spaces), state first; null once the process is gone.
 */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds so far per process id (or only their kernel part); processes gone are left out. */
export function cpuOf(pids: number[], part: 'all' | 'system' = 'all'): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    const seconds = cpuSecondsOf(pid, part);
    if (!Number.isNaN(seconds)) {
      cpu.set(pid, seconds);
    }
  }
  return cpu;
}

/** The groups the bench watches: its own process, the receiver, the engine, PostgreSQL and NATS. */
export function benchCpuGroups(pids: { receiver: number; engine?: number }): CpuGroups {
  const groups: CpuGroups = {
    bench: () => cpuOf([process.pid]),
    receiver: () => cpuOf([pids.receiver]),
    postgres: postgresCpu,
    nats: () => cpuOf(pidsNamed('nats-server')),
  };
  if (pids.engine !== undefined) {
    const engine = pids.engine;
    groups.engine = () => cpuOf([engine]);
    // Included in `engine`: its time in the kernel (socket writes to PostgreSQL and receivers).
    groups['engine (kernel)'] = () => cpuOf([engine], 'system');
  }
  return groups;
}
