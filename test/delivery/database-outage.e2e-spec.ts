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
        const rows: { event_id: string }[] = await stack.api.dataSource.query(
          `SELECT event_id FROM deliveries WHERE tenant_id = $1 AND status = 'succeeded'`,
          [tenantId],
        );
        return rows.length === events.length ? rows : null;
      },
      { timeoutMs: 25_000, what: 'every event delivered' },
    );
    expect(new Set(delivered.map((row) => row.event_id))).toEqual(
      new Set(events.map((event) => event.id)),
    );
  });
});
