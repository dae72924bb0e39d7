import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultsOfRun, RUN_VARIABLE, summaryTable } from './results';
import { RESULTS_DIR } from './settings';

/** Gathers the run's results into `latest.json` and prints the summary table. */
export default function globalTeardown(): void {
  const run = process.env[RUN_VARIABLE];
  const results = run ? resultsOfRun(run) : [];
  if (results.length === 0) {
    return;
  }
  writeFileSync(
    join(RESULTS_DIR, 'latest.json'),
    `${JSON.stringify({ run, scenarios: results }, null, 2)}\n`,
  );
  const first = results[0];
  process.stdout.write(
    `\nFault suite, ${run}: ${first.machine.cpus} × ${first.machine.cpuModel}, ${first.machine.os}, ` +
      `Node ${first.machine.node}, commit ${first.commit.sha.slice(0, 12)}` +
      `${first.commit.changesInCheckout ? ' (with changes)' : ''}\n\n${summaryTable(results)}\n` +
      `\nEvery figure: ${join(RESULTS_DIR, 'latest.json')}\n`,
  );
}
