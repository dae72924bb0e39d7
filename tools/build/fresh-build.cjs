'use strict';
/**
 * Compiles dist/ only when a source is newer than the last build, so that `npm run svc` and
 * `npm start` cost a compile only after a change (an up-to-date incremental tsc alone takes
 * seconds). A build is the Nest apps, libs and tools (tsc into dist/) and the console (Vite into
 * dist/console/, ADR 0042); apps/console is among the sources, so a change to it rebuilds.
 * Plain JavaScript because it runs before anything is compiled.
 *
 *   node tools/build/fresh-build.cjs build                 compile now (npm run build)
 *   node tools/build/fresh-build.cjs run <dist entry> [..] compile if stale, then run the entry
 *                                                          in this process with the arguments
 */
const { spawnSync } = require('node:child_process');
const { closeSync, existsSync, openSync, readdirSync, statSync, utimesSync } = require('node:fs');
const { join, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..', '..');
/** Its modification time is the moment the last successful build started. */
const STAMP = join(ROOT, 'dist', '.build-started-at');
const SOURCE_FOLDERS = ['apps', 'libs', 'tools'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/** Newest modification time (ms) of what the build reads; unit tests beside the code excluded. */
function newestSourceTime() {
  let newest = 0;
  const visit = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) {
        visit(child);
      } else if (!entry.name.endsWith('.spec.ts')) {
        newest = Math.max(newest, statSync(child).mtimeMs);
      }
    }
  };
  for (const folder of SOURCE_FOLDERS) {
    visit(join(ROOT, folder));
  }
  for (const file of SOURCE_FILES) {
    if (existsSync(join(ROOT, file))) {
      newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
    }
  }
  return newest;
}

function isStale() {
  return !existsSync(STAMP) || newestSourceTime() > statSync(STAMP).mtimeMs;
}

/** Runs a package's script in a child Node; `script` is a module path or a file under ROOT. */
function runNodeTool(script, args, env = process.env) {
  const path = script.startsWith('node_modules/') ? join(ROOT, script) : require.resolve(script);
  const result = spawnSync(process.execPath, [path, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    env,
  });
  if (result.status !== 0) {
    process.exit(result.status ?? 1);
  }
}

function build() {
  const startedAt = new Date();
  runNodeTool('typescript/bin/tsc', ['-p', 'tsconfig.build.json']);
  runNodeTool('tsc-alias/dist/bin/index.js', ['-p', 'tsconfig.build.json']);
  // Vite's bin is not in its package's exports, hence the path. Always a production build: under
  // Jest (NODE_ENV=test) Vite would otherwise emit development JSX, a third larger.
  runNodeTool(
    'node_modules/vite/bin/vite.js',
    ['build', '--config', 'apps/console/vite.config.mts', '--logLevel', 'warn'],
    { ...process.env, NODE_ENV: 'production' },
  );
  // The start time, not the end: a file saved while tsc ran makes the next call compile again.
  closeSync(openSync(STAMP, 'w'));
  utimesSync(STAMP, startedAt, startedAt);
}

function main([mode, entry, ...args]) {
  if (mode === 'build') {
    build();
    return;
  }
  if (mode !== 'run' || !entry) {
    process.stderr.write('usage: fresh-build.cjs build | run <dist entry> [arguments]\n');
    process.exit(2);
  }
  if (isStale()) {
    process.stderr.write('compiling: sources changed since the last build\n');
    build();
  }
  // The entry reads its arguments from process.argv, as if started as `node <entry> ...`.
  const entryPath = resolve(ROOT, entry);
  process.argv = [process.argv[0], entryPath, ...args];
  require(entryPath);
}

main(process.argv.slice(2));
