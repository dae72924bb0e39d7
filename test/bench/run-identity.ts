import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, release, totalmem, type } from 'node:os';

/** The machine a bench ran on, as its figures are read with it. */
export interface Machine {
  os: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
}

/** The checked-out commit, and whether the checkout had changes (the bench measures the tree). */
export function gitCommit(repoRoot: string): { commit: string; dirty: boolean } {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
    return { commit: git('rev-parse', 'HEAD'), dirty: git('status', '--porcelain') !== '' };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

function operatingSystem(): string {
  const file = '/etc/os-release';
  const pretty = existsSync(file)
    ? /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync(file, 'utf8'))?.[1]
    : undefined;
  return `${pretty ? `${pretty}, ` : ''}${type()} ${release()} ${arch()}`;
}

export function thisMachine(): Machine {
  return {
    os: operatingSystem(),
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.versions.node,
  };
}
