import { DELIVERY_HEADERS } from '@svc/contracts';
import {
  ed25519SignatureEntries,
  publicJwkOf,
  signatureHeaderValue,
  standardWebhookSignature,
} from '@svc/signing';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import {
  createReceiver,
  DeliveryInfo,
  jwksKeySource,
  ReceiverOptions,
  ReceiverServer,
  SIGNATURE_HEADER,
  WebhookEvent,
} from '@svc/webhook-receiver';
import {
  TEST_CA_FILE,
  TEST_SERVER_CERT_FILE,
  TEST_SERVER_KEY_FILE,
} from '../support/https-receiver';

/**
 * The example receiver customers copy, served over real HTTPS with the test certificate and
 * called with undici trusting only the test CA: what it answers, and what it hands to onEvent.
 */

const SECRET = 'whsec_receiver_example_0123456789';
const TLS = { cert: readFileSync(TEST_SERVER_CERT_FILE), key: readFileSync(TEST_SERVER_KEY_FILE) };

function envelope(id: string, data: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    type: 'alert.created',
    created_at: '2026-01-02T03:04:05.000Z',
    tenant_id: 'ten_acme',
    data,
  });
}

interface Processed {
  event: WebhookEvent;
  delivery: DeliveryInfo;
}

it('the receiver example reads the signature header the service sends', () => {
  expect(SIGNATURE_HEADER).toBe(DELIVERY_HEADERS.signature.toLowerCase());
});

describe('receiver example (HTTPS)', () => {
  const agent = new Agent({ connect: { ca: readFileSync(TEST_CA_FILE) } });
  let server: ReceiverServer;
  let url: string;
  let processed: Processed[];
  let order: string[];

  async function start(options: Partial<ReceiverOptions> = {}): Promise<void> {
    processed = [];
    order = [];
    server = createReceiver({
      secret: SECRET,
      tls: TLS,
      onEvent: (event, delivery) => {
        order.push(`processed ${event.id}`);
        processed.push({ event, delivery });
      },
      ...options,
    });
    // Registered after the receiver's own listener, so it sees the answer it sends.
    server.on('request', (_request, response) =>
      response.once('finish', () => order.push('answered')),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  }

  async function post(
    body: string | Buffer,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    const response = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: response.statusCode, text: await response.body.text() };
  }

  /** Both signatures, as the service sends them; `sentAt` in seconds (default: now). */
  const signed = (
    body: string | Buffer,
    secret = SECRET,
    sentAt = Math.floor(Date.now() / 1000),
  ) => ({
    [DELIVERY_HEADERS.signature]: signatureHeaderValue(body, secret),
    'webhook-id': 'evt_header_id',
    'webhook-timestamp': String(sentAt),
    'webhook-signature': standardWebhookSignature([secret], 'evt_header_id', sentAt, body),
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  afterAll(() => agent.close());

  it('during a rotation, accepts a delivery signed with either of its secrets (ADR 0026)', async () => {
    const newSecret = 'the-new-secret-after-rotation';
    await start({ secret: [newSecret, SECRET] });
    const byNew = envelope('evt_rotation_new');
    const byOld = envelope('evt_rotation_old');
    const byNeither = envelope('evt_rotation_none');

    expect((await post(byNew, signed(byNew, newSecret))).status).toBe(200);
    expect((await post(byOld, signed(byOld, SECRET))).status).toBe(200);
    expect((await post(byNeither, signed(byNeither, 'some-other-secret-entirely'))).status).toBe(
      401,
    );
  });

  it('answers 200 to a correctly signed event and processes it after answering', async () => {
    await start();
    const body = envelope('evt_ok_1', { title: 'Überwachung ✓' });

    const response = await post(body, signed(body));
    expect(response.status).toBe(200);

    await server.drain();
    expect(processed).toHaveLength(1);
    expect(processed[0].event).toEqual(JSON.parse(body));
    expect(processed[0].delivery.rawBody.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(order).toEqual(['answered', 'processed evt_ok_1']);
  });

  it('does not make the sender wait for slow processing', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    await start({
      onEvent: async (event) => {
        started.push(event.id);
        await gate;
      },
    });
    const body = envelope('evt_slow_1');

    // The answer arrives although processing cannot finish before the gate opens.
    expect((await post(body, signed(body))).status).toBe(200);
    let drained = false;
    const draining = server.drain().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toEqual(['evt_slow_1']);
    expect(drained).toBe(false);

    release();
    await draining;
  });

  it('verifies the raw bytes, so a body that is not in canonical JSON form is accepted', async () => {
    await start();
    const body = Buffer.from(
      `{ "type": "alert.created",  "id": "evt_raw_1", "data": { "score": 1.0, "name": "caf\\u00e9" } }`,
      'utf8',
    );
    expect((await post(body, signed(body))).status).toBe(200);
    await server.drain();
    expect(processed.map((p) => p.event.id)).toEqual(['evt_raw_1']);
    expect(processed[0].delivery.rawBody.equals(body)).toBe(true);
  });

  it("hands over each delivery's X-SVC-Sequence, and none for a test event", async () => {
    await start();
    const numbered = envelope('evt_seq_7');
    const testEvent = envelope('evt_webhook_test');

    expect(
      (await post(numbered, { ...signed(numbered), [DELIVERY_HEADERS.sequence]: '7' })).status,
    ).toBe(200);
    expect((await post(testEvent, signed(testEvent))).status).toBe(200);
    await server.drain();

    expect(processed.map(({ event, delivery }) => [event.id, delivery.sequence])).toEqual([
      ['evt_seq_7', 7],
      ['evt_webhook_test', undefined],
    ]);
  });

  it('processes an event delivered twice only once, and still answers 200 to the duplicate', async () => {
    await start();
    const body = envelope('evt_dup_1');

    const first = await post(body, { ...signed(body), [DELIVERY_HEADERS.attempt]: '1' });
    const second = await post(body, { ...signed(body), [DELIVERY_HEADERS.attempt]: '2' });
    const other = envelope('evt_dup_2');
    const third = await post(other, signed(other));

    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    await server.drain();
    expect(processed.map((p) => p.event.id)).toEqual(['evt_dup_1', 'evt_dup_2']);
  });

  describe('rejects with 401 and never processes', () => {
    beforeEach(() => start());

    afterEach(async () => {
      // A valid event afterwards is processed alone: the rejected ones were never queued.
      const valid = envelope('evt_valid_after');
      expect((await post(valid, signed(valid))).status).toBe(200);
      await server.drain();
      expect(processed.map((p) => p.event.id)).toEqual(['evt_valid_after']);
    });

    it('a tampered body', async () => {
      const body = envelope('evt_tampered', { severity: 'low' });
      const tampered = body.replace('"low"', '"high"');
      const response = await post(tampered, signed(body));
      expect(response.status).toBe(401);
    });

    it('a body signed with another secret', async () => {
      const body = envelope('evt_wrong_secret');
      expect((await post(body, signed(body, `${SECRET}-other`))).status).toBe(401);
    });

    it('a body without a signature header', async () => {
      expect((await post(envelope('evt_unsigned'))).status).toBe(401);
    });

    it('a delivery replayed more than the tolerance (5 min) after it was sent', async () => {
      const body = envelope('evt_replayed');
      const sixMinutesAgo = Math.floor(Date.now() / 1000) - 360;
      expect((await post(body, signed(body, SECRET, sixMinutesAgo))).status).toBe(401);
      expect(processed).toEqual([]);
    });

    it('a captured delivery given a fresh, unsigned time', async () => {
      const body = envelope('evt_retimed');
      const captured = signed(body, SECRET, Math.floor(Date.now() / 1000) - 360);
      const retimed = { ...captured, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
      expect((await post(body, retimed)).status).toBe(401);
    });

    it('a delivery without the Standard Webhooks headers', async () => {
      const body = envelope('evt_no_time');
      const onlySpec = { [DELIVERY_HEADERS.signature]: signatureHeaderValue(body, SECRET) };
      expect((await post(body, onlySpec)).status).toBe(401);
    });

    it('a signature in uppercase hex', async () => {
      const body = envelope('evt_uppercase');
      const header = signatureHeaderValue(body, SECRET).replace(/[0-9a-f]{64}$/, (hex) =>
        hex.toUpperCase(),
      );
      expect((await post(body, { [DELIVERY_HEADERS.signature]: header })).status).toBe(401);
    });
  });

  it('answers 400 to a signed body that is not an event envelope', async () => {
    await start();
    for (const body of ['not json', '[1,2]', '{"type":"alert.created"}']) {
      expect((await post(body, signed(body))).status).toBe(400);
    }
    await server.drain();
    expect(processed).toEqual([]);
  });

  it('answers 413 to a body over the size cap and 405 to anything but POST', async () => {
    await start({ maxBodyBytes: 1024 });
    const big = envelope('evt_big', { padding: 'x'.repeat(2048) });
    expect((await post(big, signed(big))).status).toBe(413);

    const get = await request(url, { method: 'GET', dispatcher: agent });
    await get.body.dump();
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('answers 503 while its queue is full, so that the sender retries later', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await start({ maxQueueLength: 1, onEvent: () => gate });
    const bodies = ['evt_q_1', 'evt_q_2', 'evt_q_3'].map((id) => envelope(id));

    // The first is being processed (out of the queue), the second waits, the third is refused.
    expect((await post(bodies[0], signed(bodies[0]))).status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await post(bodies[1], signed(bodies[1]))).status).toBe(200);
    const refused = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: signed(bodies[2]),
      body: bodies[2],
    });
    await refused.body.dump();
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');

    release();
    await server.drain();
    // Not remembered as seen, so its retry is accepted.
    expect((await post(bodies[2], signed(bodies[2]))).status).toBe(200);
    await server.drain();
  });

  it('reports a failure of onEvent and goes on with the next event', async () => {
    const errors: string[] = [];
    const done: string[] = [];
    await start({
      onEvent: (event) => {
        if (event.id === 'evt_fails') {
          throw new Error('downstream unavailable');
        }
        done.push(event.id);
      },
      onError: (error, event) => errors.push(`${event.id}: ${(error as Error).message}`),
    });
    for (const id of ['evt_fails', 'evt_after_failure']) {
      const body = envelope(id);
      expect((await post(body, signed(body))).status).toBe(200);
    }
    await server.drain();
    expect(errors).toEqual(['evt_fails: downstream unavailable']);
    expect(done).toEqual(['evt_after_failure']);
  });

  it('verifies an ed25519-only endpoint with the published keys alone, and follows a rotation', async () => {
    const keyPair = (kid: string) => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      return { privateKey, jwk: publicJwkOf(publicKey, kid) };
    };
    const current = keyPair('whk_current');
    const published = { keys: [current.jwk] };
    // The service's JWKS, as GET /.well-known/webhook-signing-keys.json answers it.
    const jwksServer = createServer((_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'cache-control': 'public, max-age=300',
      });
      response.end(JSON.stringify(published));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/keys.json`;
    const ed25519Signed = (body: string, keys = [current.privateKey]) => {
      const sentAt = Math.floor(Date.now() / 1000);
      return {
        'webhook-id': 'evt_header_id',
        'webhook-timestamp': String(sentAt),
        'webhook-signature': ed25519SignatureEntries(keys, 'evt_header_id', sentAt, body).join(' '),
      };
    };
    try {
      await start({ secret: undefined, jwks: jwksKeySource(jwksUrl) });
      const body = envelope('evt_ed25519_1');
      expect((await post(body, ed25519Signed(body))).status).toBe(200);
      await server.drain();
      expect(processed.map(({ delivery }) => delivery.verification)).toEqual([
        { verified: 'ed25519', schemes: ['ed25519'] },
      ]);

      // HMAC signatures mean nothing to a receiver without the secret.
      const hmacOnly = envelope('evt_ed25519_hmac');
      expect((await post(hmacOnly, signed(hmacOnly))).status).toBe(401);

      // A key published after the receiver cached the set: signed by it alone, and refused until
      // the receiver may refetch (the first fetch was under 30 s ago), so the sender retries.
      const next = keyPair('whk_next');
      published.keys = [next.jwk, current.jwk];
      const byNext = envelope('evt_ed25519_next');
      expect((await post(byNext, ed25519Signed(byNext, [next.privateKey]))).status).toBe(401);
      // During the overlap the engine signs with both keys, and the cached one verifies.
      const byBoth = envelope('evt_ed25519_both');
      const bothKeys = [next.privateKey, current.privateKey];
      expect((await post(byBoth, ed25519Signed(byBoth, bothKeys))).status).toBe(200);
    } finally {
      jwksServer.close();
    }
  });
});
