import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, RUNBOOKS } from './deploy-files';
import type { Rule } from './monitoring-files';

/**
 * Alerts and their runbooks (docs/runbooks): every alert's `runbook_url` is the repository path
 * docs/runbooks/<alert name in kebab case>.md, that file exists, opens with the alert's name and
 * its severity, and has the four sections an on-call engineer looks for; every runbook belongs to
 * an alert (docs/runbooks/README.md is the index, no runbook).
 */

export const RUNBOOK_SECTIONS = ['## Meaning', '## Impact', '## Diagnosis', '## Mitigation'];

/** SvcWebhooksApiLatencyP99High -> svc-webhooks-api-latency-p99-high */
export function kebabCase(name: string): string {
  return name.replace(/(?<=[a-z0-9])(?=[A-Z])/g, '-').toLowerCase();
}

/** The repository path of an alert's runbook. */
export function runbookPath(alert: string): string {
  return `docs/runbooks/${kebabCase(alert)}.md`;
}

/** The runbooks in docs/runbooks, as repository paths (the index left out). */
export function runbookFiles(directory = RUNBOOKS): string[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => `docs/runbooks/${file}`)
    .sort();
}

/** Everything wrong between `alerts` and the runbook files, one message each. */
export function runbookProblems(
  alerts: (Rule & { alert: string })[],
  files: string[],
  read: (path: string) => string | undefined = (path) =>
    existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : undefined,
): string[] {
  const problems: string[] = [];
  const linked = new Set<string>();
  for (const rule of alerts) {
    const url = rule.annotations?.runbook_url;
    const expected = runbookPath(rule.alert);
    if (url === undefined) {
      problems.push(`${rule.alert}: no runbook_url annotation`);
      continue;
    }
    linked.add(url);
    if (url !== expected) problems.push(`${rule.alert}: runbook_url is ${url}, not ${expected}`);
    const text = read(url);
    if (text === undefined) {
      problems.push(`${rule.alert}: ${url} does not exist`);
      continue;
    }
    if (!text.startsWith(`# ${rule.alert}\n`)) {
      problems.push(`${rule.alert}: ${url} does not open with "# ${rule.alert}"`);
    }
    const severity = rule.labels?.severity;
    if (!text.includes(`**Severity:** ${severity}.`)) {
      problems.push(`${rule.alert}: ${url} does not say "**Severity:** ${severity}."`);
    }
    for (const section of RUNBOOK_SECTIONS) {
      if (!text.split('\n').includes(section)) {
        problems.push(`${rule.alert}: ${url} has no "${section}" section`);
      }
    }
  }
  for (const file of files) {
    if (!linked.has(file)) problems.push(`${file}: no alert links to it`);
  }
  return problems;
}
