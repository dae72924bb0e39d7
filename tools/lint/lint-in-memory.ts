import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Lints sources that exist only in memory, each under a file name of its own, with the project's
 * lint configuration (eslint.config.mjs), for tests of that configuration. ESLint loads its
 * configuration with a dynamic import, which Jest's module system cannot run, so ESLint's API runs
 * in a child Node process, once for every probe given. Type-aware rules are off: the TypeScript
 * project does not know files that are not on disk.
 */
const ROOT = path.resolve(__dirname, '../..');

const LINT_IN_MEMORY = `
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
const probes = JSON.parse(process.argv[1]);
const eslint = new ESLint({ cwd: process.cwd(), overrideConfig: tseslint.configs.disableTypeChecked });
const found = [];
for (const { filePath, source } of probes) {
  const [result] = await eslint.lintText(source, { filePath });
  found.push(result.messages.map((m) => ({ ruleId: m.ruleId, line: m.line, message: m.message })));
}
process.stdout.write(JSON.stringify(found));
`;

export interface Finding {
  ruleId: string | null;
  line: number;
  message: string;
}

export interface Probe {
  /** Relative to the repository's root. */
  filePath: string;
  source: string;
}

/** The findings for each probe, in the probes' order. */
export function lintInMemory(probes: Probe[]): Finding[][] {
  const out = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', LINT_IN_MEMORY, JSON.stringify(probes)],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(out) as Finding[][];
}
