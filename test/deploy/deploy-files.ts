import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** Where deploy/ and its neighbours are, and how the deploy tests read them. */
export const ROOT = resolve(__dirname, '../..');
export const DEPLOY = join(ROOT, 'deploy');
export const KUBERNETES = join(DEPLOY, 'kubernetes');
export const DASHBOARD = join(DEPLOY, 'monitoring/grafana-dashboard.json');
export const RULES = join(DEPLOY, 'monitoring/prometheus-rules.yaml');
export const RUNBOOKS = join(ROOT, 'docs/runbooks');

/** Files under `directory` (recursively) whose path matches `pattern`, sorted. */
export function filesUnder(directory: string, pattern: RegExp): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .map((file) => join(directory, file))
    .filter((file) => pattern.test(file) && statSync(file).isFile())
    .sort();
}

/** Every non-empty YAML document of `file`; a syntax error throws, naming the file. */
export function yamlDocuments(file: string): any[] {
  const documents = parseAllDocuments(readFileSync(file, 'utf8'));
  for (const document of documents) {
    if (document.errors.length > 0) {
      throw new Error(`${relative(ROOT, file)}: ${document.errors.map(String).join('; ')}`);
    }
  }
  return documents.map((document) => document.toJS()).filter((value) => value != null);
}
