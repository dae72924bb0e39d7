import { postgresFailover } from '../harness/postgres-failover';
import { failedChecks, runScenario } from '../harness/scenario';

describe('fault: PostgreSQL primary lost, synchronous standby promoted', () => {
  it('the engine waits without a primary, resumes on the promoted standby on its own, and loses nothing', async () => {
    // The whole ledger: a commit the engine saw succeed was on the standby, so nothing it acted
    // on (an ack to JetStream, a retry due) is missing after the promotion.
    const result = await runScenario(postgresFailover('synchronous'));
    expect(failedChecks(result)).toEqual([]);
  }, 600_000);
});
