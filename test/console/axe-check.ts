import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

/**
 * axe-core from node_modules, evaluated through the devtools protocol (the page's CSP allows no
 * inline script), for every suite that checks a page or panel.
 */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** Every violation axe-core finds in the page as it is now, and how many rules passed. */
export async function runAxe(page: Page): Promise<{ passed: number; violations: AxeViolation[] }> {
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) {
    await page.evaluate(AXE_SOURCE);
  }
  return page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((results) => ({
    passed: results.passes.length,
    violations: results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => node.target.join(' ') + ': ' + node.failureSummary),
    })),
  }))`);
}
