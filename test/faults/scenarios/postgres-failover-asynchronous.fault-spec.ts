import { postgresFailover } from '../harness/postgres-failover';
import { failedChecks, runScenario } from '../harness/scenario';

describe('fault: PostgreSQL primary lost, asynchronous standby promoted', () => {
  it('the engine resumes on its own; what is lost is what the standby had not received, and only that', async () => {
    // Asynchronous replication loses, by construction, the commits the standby had not received:
    // the ledger's checks that need the whole log are reported (figures.notAsserted,
    // figures.asynchronousLosses) but not asserted; those that hold for any consistent prefix of
    // the log, and the readiness through the gap, are (see harness/postgres-failover.ts).
    const result = await runScenario(postgresFailover('asynchronous'));
    expect(failedChecks(result)).toEqual([]);
  }, 600_000);
});
