import { SignatureScheme } from '@svc/contracts';
import { SigningKeyStore } from '@svc/signing-keys';
import { createReceiver, jwksKeySource, WebhookEvent } from '@svc/webhook-receiver';
import { webcrypto } from 'node:crypto';
import { once } from 'node:events';
import { AddressInfo } from 'node:net';
import { http } from '../support';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, ReceivedRequest, startHttpsReceiver } from '../support/https-receiver';

type KeySet = { keys: Array<webcrypto.JsonWebKey & { kid: string }> };

/**
 * Ed25519 signatures end to end (ADR 0044): the engine signs with the deployment's keys, and a
 * receiver verifies with the JWKS fetched from the API and WebCrypto alone, an implementation the
 * project does not contain; the reference receiver (libs/webhook-receiver) verifies the same
 * deliveries with the same JWKS.
 */
describe('Ed25519 signatures on deliveries', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    stack = await startDeliveryStack();
    receiver = await startHttpsReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  const keySet = async (): Promise<KeySet> =>
    (await http<KeySet>(stack.api.baseUrl, 'GET', '/.well-known/webhook-signing-keys.json')).body;

  async function register(key: string, path: string, schemes: SignatureScheme[]) {
    const response = await http(stack.api.baseUrl, 'POST', '/v1/webhooks', {
      key,
      json: {
        url: `${receiver.url}${path}`,
        events: ['alert.*'],
        secret: 'a-secret-of-the-hmac-scheme-1',
        signature_schemes: schemes,
      },
    });
    expect(response.status).toBe(201);
  }

  async function deliveredTo(path: string): Promise<ReceivedRequest> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const found = receiver.requests.find((request) => request.path === path);
      if (found) {
        return found;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no delivery to ${path}`);
  }

  const entriesOf = (request: ReceivedRequest, version: string) =>
    String(request.headers['webhook-signature'])
      .split(' ')
      .filter((entry) => entry.startsWith(`${version},`));

  /** The keys of the set under which this v1a entry verifies, by WebCrypto. */
  async function verifyingKids(request: ReceivedRequest, entry: string, keys: KeySet) {
    const signed = Buffer.concat([
      Buffer.from(
        `${String(request.headers['webhook-id'])}.${String(request.headers['webhook-timestamp'])}.`,
      ),
      request.rawBody,
    ]);
    const kids: string[] = [];
    for (const jwk of keys.keys) {
      const key = await webcrypto.subtle.importKey('jwk', jwk, { name: 'Ed25519' }, false, [
        'verify',
      ]);
      const signature = Buffer.from(entry.slice('v1a,'.length), 'base64');
      if (await webcrypto.subtle.verify({ name: 'Ed25519' }, key, signature, signed)) {
        kids.push(jwk.kid);
      }
    }
    return kids;
  }

  it('sends an ed25519-only endpoint v1a entries only, verifiable with the JWKS', async () => {
    const { tenantId, key } = await stack.newTenant();
    await register(key, '/ed25519', ['ed25519']);
    await stack.publish(tenantId);
    const request = await deliveredTo('/ed25519');

    expect(request.headers['x-svc-signature-256']).toBeUndefined();
    expect(request.headers['webhook-id']).toBeDefined();
    expect(request.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(entriesOf(request, 'v1')).toEqual([]);
    const [entry, ...more] = entriesOf(request, 'v1a');
    expect(more).toEqual([]);
    const keys = await keySet();
    expect(await verifyingKids(request, entry, keys)).toEqual([keys.keys[0].kid]);
  });

  /** The delivery, sent on to the reference receiver verifying with the API's JWKS alone. */
  async function answerOfReferenceReceiver(request: ReceivedRequest, rawBody: Buffer) {
    const accepted: WebhookEvent[] = [];
    const reference = createReceiver({
      jwks: jwksKeySource(`${stack.api.baseUrl}/.well-known/webhook-signing-keys.json`),
      onEvent: (event, delivery) => {
        expect(delivery.verification.verified).toBe('ed25519');
        accepted.push(event);
      },
    });
    reference.listen(0, '127.0.0.1');
    await once(reference, 'listening');
    try {
      const headers = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map(
        (name) => [name, String(request.headers[name])] as [string, string],
      );
      const url = `http://127.0.0.1:${(reference.address() as AddressInfo).port}/`;
      const response = await fetch(url, { method: 'POST', headers, body: rawBody });
      await reference.drain();
      return { status: response.status, accepted };
    } finally {
      reference.close();
      reference.closeAllConnections();
    }
  }

  it('the reference receiver verifies the delivery WebCrypto verified, and refuses it altered by one byte', async () => {
    const { tenantId, key } = await stack.newTenant();
    await register(key, '/reference', ['ed25519']);
    await stack.publish(tenantId);
    const request = await deliveredTo('/reference');
    const [entry] = entriesOf(request, 'v1a');
    expect(await verifyingKids(request, entry, await keySet())).toHaveLength(1);

    const genuine = await answerOfReferenceReceiver(request, request.rawBody);
    expect(genuine.status).toBe(200);
    expect(genuine.accepted.map((event) => event.id)).toEqual([request.headers['webhook-id']]);

    const altered = Buffer.from(request.rawBody);
    altered[altered.length - 2] ^= 0x01;
    const refused = await answerOfReferenceReceiver(request, altered);
    expect(refused).toEqual({ status: 401, accepted: [] });
  });

  it('sends both schemes to an endpoint that names both, each verifiable', async () => {
    const { tenantId, key } = await stack.newTenant();
    await register(key, '/both', ['hmac-sha256', 'ed25519']);
    await stack.publish(tenantId);
    const request = await deliveredTo('/both');

    expect(request.headers['x-svc-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(entriesOf(request, 'v1')).toHaveLength(1);
    const [entry] = entriesOf(request, 'v1a');
    expect(await verifyingKids(request, entry, await keySet())).toHaveLength(1);
  });

  it('signs with the old and the new key during a rotation overlap, newest first', async () => {
    const before = await keySet();
    const rotation = await stack.api.app.get(SigningKeyStore).rotate(3_600_000, 300_000);
    // The engine reads the keys every minute; here at once.
    await stack.engine.engine['parts'].keyring.refresh();
    const { tenantId, key } = await stack.newTenant();
    await register(key, '/rotation', ['ed25519']);
    await stack.publish(tenantId);
    const request = await deliveredTo('/rotation');

    const entries = entriesOf(request, 'v1a');
    expect(entries).toHaveLength(2);
    const during = await keySet();
    expect(during.keys.map((jwk) => jwk.kid)).toEqual([rotation.current.kid, before.keys[0].kid]);
    expect(await verifyingKids(request, entries[0], during)).toEqual([rotation.current.kid]);
    // A receiver still holding the set from before the rotation verifies the second entry.
    expect(await verifyingKids(request, entries[1], before)).toEqual([before.keys[0].kid]);
  });
});
