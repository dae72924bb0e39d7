import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { firstAttemptHeaders } from './raw-ceiling';

/**
 * The floor of a delivery (issue 18): the least any JetStream-to-HTTPS relay does per event, as
 * its own process, measured beside the engine in the cost scenario. It takes each message from a
 * pull consumer, signs its bytes, POSTs them with the raw client's headers to the endpoint its
 * type names, over the same kind of connection pool as the engine, reads the answer and
 * acknowledges the message. Nothing is validated, looked up, recorded or retried, and no metric or
 * span is kept: what the engine costs above this is what its guarantees cost.
 *
 * Environment: NATS_URL, FLOOR_STREAM, FLOOR_CONSUMER, FLOOR_CA_FILE, FLOOR_CONNECTIONS and
 * FLOOR_ENDPOINTS (JSON: `{ [eventType]: { url, secret } }`). Prints `ready` once it consumes.
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
  const nc = await connect({ servers: env.NATS_URL });
  const consumer = await jetstream(nc).consumers.get(env.FLOOR_STREAM!, env.FLOOR_CONSUMER);
  const messages = await consumer.consume({ max_messages: 32 });
  process.once('SIGTERM', () => {
    void messages.close().then(() => nc.close());
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
    void request(endpoint.url, {
      method: 'POST',
      dispatcher: agent,
      body,
      headers: firstAttemptHeaders(body, endpoint.secret, event),
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
