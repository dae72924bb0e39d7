import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { removeLeftovers } from './leftovers';
import { RUN_VARIABLE } from './results';
import { REPO_ROOT } from './settings';

/**
 * The scenarios run the built apps (`dist/`): compile first when a source is newer than the last
 * build, by the rule of tools/build/fresh-build.cjs, so an up-to-date checkout (CI, after its
 * build step) pays nothing. Only relative imports here: Jest maps no path aliases for a global
 * setup.
 */
const STAMP = join(REPO_ROOT, 'dist', '.build-started-at');

function newestSource(): number {
  let newest = 0;
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) {
        visit(child);
      } else if (!entry.name.endsWith('.spec.ts')) {
        newest = Math.max(newest, statSync(child).mtimeMs);
      }
    }
  };
  ['apps', 'libs', 'tools'].forEach((folder) => visit(join(REPO_ROOT, folder)));
  for (const file of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
  ]) {
    if (existsSync(join(REPO_ROOT, file))) {
      newest = Math.max(newest, statSync(join(REPO_ROOT, file)).mtimeMs);
    }
  }
  return newest;
}

export default function globalSetup(): void {
  for (const line of removeLeftovers()) {
    process.stderr.write(`[faults] left by an interrupted run: ${line}\n`);
  }
  // FAULTS_SKIP_BUILD=1 runs the dist/ there is (a build made elsewhere, or one kept on purpose).
  const stale = !existsSync(STAMP) || newestSource() > statSync(STAMP).mtimeMs;
  if (stale && process.env.FAULTS_SKIP_BUILD !== '1' && !process.env.FAULTS_APPS_ROOT) {
    process.stderr.write('[faults] compiling: sources changed since the last build\n');
    execFileSync('npm', ['run', '-s', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
  }
  // The scenarios of this run write their results under this id; the teardown gathers them.
  process.env[RUN_VARIABLE] = `${new Date().toISOString()}-${randomBytes(2).toString('hex')}`;
}
