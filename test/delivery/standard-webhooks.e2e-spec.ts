import { Webhook } from 'standardwebhooks';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';

/**
 * Every delivery also carries the Standard Webhooks headers (ADR 0024), verified here by the
 * `standardwebhooks` library from npm, unmodified, as a receiver would use it.
 */
describe('Standard Webhooks headers on every delivery', () => {
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

  it('signs id, time and body so that the library verifies a plain secret (raw format)', async () => {
    const { tenantId, key } = await stack.newTenant();
    const secret = 'plain-secret-for-standard-1';
    await stack.registerEndpoint(key, `${receiver.url}/plain`, { secret });
    const envelope = await stack.publish(tenantId);

    const [request] = await receiver.waitForRequests(1);
    expect(request.headers['webhook-id']).toBe(envelope.id);
    const sent = Number(request.headers['webhook-timestamp']);
    expect(Math.abs(sent - Date.now() / 1000)).toBeLessThan(30);
    const verified = new Webhook(secret, { format: 'raw' }).verify(
      request.rawBody.toString('utf8'),
      request.headers as Record<string, string>,
    );
    expect(verified).toEqual(envelope);
    // The spec's signature is still there, unchanged.
    expect(request.headers['x-svc-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('verifies with the library in its default format when the secret is whsec_<base64>', async () => {
    const { tenantId, key } = await stack.newTenant();
    const secret = `whsec_${Buffer.from('a key of thirty-two bytes or so!').toString('base64')}`;
    await stack.registerEndpoint(key, `${receiver.url}/whsec`, { secret });
    const envelope = await stack.publish(tenantId);

    const [request] = (await receiver.waitForRequests(2)).filter((r) => r.path === '/whsec');
    expect(
      new Webhook(secret).verify(
        request.rawBody.toString('utf8'),
        request.headers as Record<string, string>,
      ),
    ).toEqual(envelope);
    // A captured delivery replayed with a fresh time is refused: the time is signed.
    expect(() =>
      new Webhook(secret).verify(request.rawBody.toString('utf8'), {
        ...(request.headers as Record<string, string>),
        'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 1),
      }),
    ).toThrow();
  });
});
