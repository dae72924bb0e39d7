import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const CONSOLE_SOURCES = join(ROOT, 'apps/console');
const BUILT_INDEX = join(ROOT, 'dist/console/index.html');

function newestModification(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) {
    return stat.mtimeMs;
  }
  return Math.max(
    stat.mtimeMs,
    ...readdirSync(path).map((name) => newestModification(join(path, name))),
  );
}

/**
 * The browser suites test the console as built: CI builds before `npm test`; a test run on a
 * fresh checkout, or after a change to apps/console, builds it first (a few seconds). Jest's
 * global setup calls this once before any suite starts, so that suites running side by side
 * never build (and empty dist/console) under each other; the test bed calls it again, which
 * costs a look at file times. Only relative imports: global setup maps no path aliases.
 */
export function ensureConsoleBuilt(): void {
  const stale =
    !existsSync(BUILT_INDEX) || newestModification(CONSOLE_SOURCES) > statSync(BUILT_INDEX).mtimeMs;
  if (!stale) {
    return;
  }
  const build = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'apps/console/vite.config.mts',
      '--logLevel',
      'warn',
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (build.status !== 0) {
    throw new Error(`the console did not build:\n${build.stdout}${build.stderr}`);
  }
}
