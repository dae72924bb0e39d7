import { Client } from 'pg';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { TEST_POSTGRES_URL } from '../support/test-environment';
import { waitFor } from '../support/wait-for';

/** Ends every session of the stack's database, as a failover or a network cut would. */
async function cutDatabaseSessions(databaseUrl: string): Promise<number> {
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    const name = new URL(databaseUrl).pathname.slice(1);
    const result = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    return result.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

/**
 * Takes the stack's database away, as a stopped server would: new connections are refused and
 * every session is cut, until `restore()`.
 */
async function takeDatabaseAway(databaseUrl: string): Promise<{ restore: () => Promise<void> }> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  return {
    restore: async () => {
      await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      await admin.end();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a database outage while events arrive', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    stack = await startDeliveryStack({ DELIVERY_CONSUMER_ACK_WAIT: '5s' });
    receiver = await startHttpsReceiver({ behaviour: { delayMs: 20 } });
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  it('hands failed messages back to JetStream and delivers every event once the database is back', async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/in`);
    const events = [];
    for (let i = 0; i < 30; i += 1) {
      events.push(await stack.publish(tenantId));
      if (i === 10) {
        expect(await cutDatabaseSessions(stack.databaseUrl)).toBeGreaterThan(0);
      }
    }
    const delivered = await waitFor(
      async () => {
        // The cut also closed the test's own pooled connections: a poll that meets one asks again.
        const rows: { event_id: string }[] | null = await stack.api.dataSource
          .query(`SELECT event_id FROM deliveries WHERE tenant_id = $1 AND status = 'succeeded'`, [
            tenantId,
          ])
          .catch(() => null);
        return rows?.length === events.length ? rows : null;
      },
      { timeoutMs: 25_000, what: 'every event delivered' },
    );
    expect(new Set(delivered.map((row) => row.event_id))).toEqual(
      new Set(events.map((event) => event.id)),
    );
  });

  it('stops taking work within a second, reports not-ready, keeps what it holds, and resumes with duplicates bounded by what was in flight', async () => {
    const endpoints = 5;
    const maxConcurrency = 16;
    const outage = await startDeliveryStack({
      DELIVERY_MAX_CONCURRENCY: String(maxConcurrency),
      DELIVERY_RETRY_SCHEDULE: '200ms',
    });
    const receivers = await Promise.all(
      Array.from({ length: endpoints }, () => startHttpsReceiver({ behaviour: { delayMs: 10 } })),
    );
    try {
      const { tenantId, key } = await outage.newTenant();
      for (const [index, target] of receivers.entries()) {
        await outage.registerEndpoint(key, `${target.url}/outage-${index}`);
      }
      const readiness = async () =>
        (await fetch(`${outage.engine.managementUrl}/readyz`).catch(() => undefined))?.status;
      const events = [];
      let away: { restore: () => Promise<void> } | undefined;
      let requestsWhenAway = 0;
      let requestsOneSecondLater = 0;
      let notReadySeen = false;
      for (let i = 0; i < 120; i += 1) {
        events.push(await outage.publish(tenantId));
        if (i === 40) {
          away = await takeDatabaseAway(outage.databaseUrl);
          requestsWhenAway = receivers.reduce((sum, r) => sum + r.requests.length, 0);
        }
        if (i === 41) {
          await sleep(1500);
          requestsOneSecondLater = receivers.reduce((sum, r) => sum + r.requests.length, 0);
          notReadySeen = await waitFor(async () => (await readiness()) === 503, {
            timeoutMs: 3000,
            what: 'the engine to report not-ready',
          });
        }
      }
      // Published during the outage, and nothing more is sent while it lasts.
      await sleep(2000);
      const requestsDuringOutage = receivers.reduce((sum, r) => sum + r.requests.length, 0);
      expect(requestsDuringOutage).toBe(requestsOneSecondLater);
      await away!.restore();

      await waitFor(
        async () => {
          const [row]: { n: string }[] = await outage.api.dataSource.query(
            "SELECT count(*) AS n FROM deliveries WHERE tenant_id = $1 AND status = 'succeeded'",
            [tenantId],
          );
          return Number(row.n) === events.length * endpoints;
        },
        { timeoutMs: 40_000, what: 'every delivery to succeed after the outage' },
      );
      expect(await readiness()).toBe(200);

      let duplicates = 0;
      for (const target of receivers) {
        const ids = target.requests.map((r) => r.headers['x-svc-event-id'] as string);
        expect(new Set(ids)).toEqual(new Set(events.map((event) => event.id)));
        duplicates += ids.length - new Set(ids).size;
      }
      const posts = receivers.reduce((sum, r) => sum + r.requests.length, 0);
      const [attempts]: { n: string }[] = await outage.api.dataSource.query(
        'SELECT count(*) AS n FROM delivery_attempts WHERE tenant_id = $1',
        [tenantId],
      );
      console.log(
        `database outage: ${posts} POSTs for ${events.length * endpoints} deliveries, ${duplicates} duplicates ` +
          `(bound ${maxConcurrency}); ${requestsOneSecondLater - requestsWhenAway} POSTs in the 1.5 s after the cut`,
      );
      expect(notReadySeen).toBe(true);
      expect(Number(attempts.n)).toBe(posts);
      expect(duplicates).toBeLessThanOrEqual(maxConcurrency);
      expect(requestsOneSecondLater - requestsWhenAway).toBeLessThanOrEqual(maxConcurrency);
    } finally {
      await Promise.all(receivers.map((r) => r.close()));
      await outage.close();
    }
  }, 90_000);
});
