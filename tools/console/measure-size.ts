import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from './api-types';
import { builtConsoleFolder, firstPageScripts } from './first-page-scripts';

/**
 * `npm run console:size`: the gzipped JavaScript the console's first page loads, against the
 * budget of ADR 0042 (150 KB). Exits 1 above it, or when the console is not built.
 */
const BUDGET_KB = 150;

function main(): number {
  const folder = builtConsoleFolder(repositoryRoot());
  if (!existsSync(join(folder, 'index.html'))) {
    process.stderr.write(`no built console in ${folder}: run npm run build first\n`);
    return 1;
  }
  const scripts = firstPageScripts(folder);
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  for (const script of scripts) {
    process.stdout.write(
      `${script.file}: ${kb(script.bytes)} KB, ${kb(script.gzipBytes)} KB gzipped\n`,
    );
  }
  const total = scripts.reduce((sum, script) => sum + script.gzipBytes, 0);
  const verdict = total <= BUDGET_KB * 1024 ? 'within' : 'OVER';
  process.stdout.write(
    `first page: ${kb(total)} KB of gzipped JavaScript in ${scripts.length} file(s), ${verdict} the budget of ${BUDGET_KB} KB\n`,
  );
  return verdict === 'within' ? 0 : 1;
}

process.exitCode = main();
