import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Client } from 'pg';
import { Agent, request } from 'undici';
import { firstAttemptHeaders } from './raw-ceiling';

/**
 * What a relay that numbers each endpoint's deliveries must write before a POST, at least: the
 * endpoint's counter moved on and the event's number kept, in one statement and one commit, so
 * that a crash never hands the number to another event (ADR 0045). The engine's claim does this
 * and also stores the body.
 */
const CLAIM_NUMBER = `
  WITH counted AS (
    INSERT INTO bench_floor_sequences AS counter (endpoint, last) VALUES ($2, 1)
        ON CONFLICT (endpoint) DO UPDATE SET last = counter.last + 1
    RETURNING last
  )
  INSERT INTO bench_floor_numbers (event_id, endpoint, sequence)
  SELECT $1, $2, last FROM counted
  RETURNING sequence`;

/**
 * The floor of a delivery (issue 18): the least any JetStream-to-HTTPS relay does per event, as
 * its own process, measured beside the engine in the cost scenario. It takes each message from a
 * pull consumer, signs its bytes, POSTs them with the raw client's headers to the endpoint its
 * type names, over the same kind of connection pool as the engine, reads the answer and
 * acknowledges the message. Nothing is validated, looked up, recorded or retried, and no metric or
 * span is kept: what the engine costs above this is what its guarantees cost.
 *
 * With FLOOR_DATABASE_URL it is the numbering floor: before each POST it claims the endpoint's
 * next number durably (CLAIM_NUMBER, one connection, each statement its own commit) and sends it
 * as `X-SVC-Sequence`, one at a time as the engine numbers a tenant's events.
 *
 * Environment: NATS_URL, FLOOR_STREAM, FLOOR_CONSUMER, FLOOR_CA_FILE, FLOOR_CONNECTIONS,
 * FLOOR_ENDPOINTS (JSON: `{ [eventType]: { url, secret } }`) and FLOOR_DATABASE_URL. Prints
 * `ready` once it consumes.
 */
async function main(): Promise<void> {
  const env = process.env;
  const endpoints = JSON.parse(env.FLOOR_ENDPOINTS ?? '{}') as Record<
    string,
    { url: string; secret: string }
  >;
  const agent = new Agent({
    connect: {
      secureContext: createSecureContext({
        ca: [...rootCertificates, readFileSync(env.FLOOR_CA_FILE!, 'utf8')],
      }),
    },
    connections: Number(env.FLOOR_CONNECTIONS ?? 8),
    keepAliveTimeout: 30_000,
  });
  const database = env.FLOOR_DATABASE_URL
    ? new Client({ connectionString: env.FLOOR_DATABASE_URL })
    : null;
  await database?.connect();
  const nc = await connect({ servers: env.NATS_URL });
  const consumer = await jetstream(nc).consumers.get(env.FLOOR_STREAM!, env.FLOOR_CONSUMER);
  const messages = await consumer.consume({ max_messages: 32 });
  process.once('SIGTERM', () => {
    void messages
      .close()
      .then(() => nc.close())
      .then(() => database?.end());
  });
  console.log('ready');
  for await (const message of messages) {
    const body = Buffer.from(message.data);
    const event = JSON.parse(body.toString('utf8')) as { id: string; type: string };
    const endpoint = endpoints[event.type];
    if (!endpoint) {
      message.term();
      continue;
    }
    const headers = firstAttemptHeaders(body, endpoint.secret, event);
    if (database) {
      const claimed = await database.query<{ sequence: string }>({
        name: 'claim-number',
        text: CLAIM_NUMBER,
        values: [event.id, endpoint.url],
      });
      headers['x-svc-sequence'] = claimed.rows[0].sequence;
    }
    void request(endpoint.url, {
      method: 'POST',
      dispatcher: agent,
      body,
      headers,
    })
      .then(async (answer) => {
        await answer.body.dump();
        message.ack();
      })
      .catch(() => message.nak());
  }
  await agent.close();
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
