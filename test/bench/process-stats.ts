import { readdirSync, readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc times are in these ticks. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system, all threads) a process has used so far, or only its system
 * (kernel) part; NaN once it is gone.
 */
export function cpuSecondsOf(pid: number, part: 'all' | 'system' = 'all'): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const system = Number(fields[12]);
    return (part === 'system' ? system : Number(fields[11]) + system) / TICKS_PER_SECOND;
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

/** CPU seconds used so far by a group of processes, per process id. */
export type CpuGroups = Record<string, () => Map<number, number>>;

/**
 * CPU used by groups of processes between two moments. Per process: a process that started
 * meanwhile counts whole; one that ended meanwhile (a short-lived PostgreSQL backend) is lost.
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
        let total = 0;
        for (const [pid, cpu] of read()) {
          total += cpu - (this.start[name].get(pid) ?? 0);
        }
        return [name, total / seconds];
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
    postgres: () => cpuOf(pidsNamed('postgres')),
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
