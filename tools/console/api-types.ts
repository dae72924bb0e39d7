import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The console's typed API client (ADR 0042) reads its types from one generated file, written by
 * openapi-typescript from the OpenAPI document the API serves, then formatted by Prettier as
 * every other file. `npm run console:api-types` writes it; test/console/api-types.e2e-spec.ts
 * fails when the committed file differs from what the served document gives.
 */
export const API_TYPES_FILE = 'apps/console/src/api/schema.ts';

/** The repository root: the nearest folder above with a package.json (from src/ or dist/). */
export function repositoryRoot(start: string = __dirname): string {
  let dir = start;
  while (dirname(dir) !== dir) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'apps'))) {
      return dir;
    }
    dir = dirname(dir);
  }
  throw new Error(`no repository root above ${start}`);
}

function runNode(root: string, script: string, args: string[], input?: string): string {
  // The tools run as their own processes: both are ES modules, which Jest cannot load.
  const result = spawnSync(process.execPath, [join(root, script), ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`${script} failed (${result.status}): ${result.stderr}`);
  }
  return result.stdout;
}

/** The TypeScript source of schema.ts for an OpenAPI document, exactly as it is committed. */
export function apiTypesSource(document: unknown, root: string = repositoryRoot()): string {
  const folder = mkdtempSync(join(tmpdir(), 'console-api-types-'));
  try {
    const input = join(folder, 'openapi.json');
    writeFileSync(input, JSON.stringify(document, null, 2));
    const generated = runNode(root, 'node_modules/openapi-typescript/bin/cli.js', [input]);
    return runNode(
      root,
      'node_modules/prettier/bin/prettier.cjs',
      ['--stdin-filepath', API_TYPES_FILE],
      generated,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
