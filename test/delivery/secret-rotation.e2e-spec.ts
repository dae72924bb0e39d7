import Ajv from 'ajv';
import { EventEnvelope } from '@svc/contracts';
import { ApiKeysService } from '@svc/identity';
import { verifySignature } from '@svc/signing';
import { Webhook } from 'standardwebhooks';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { http } from '../support/http-client';
import { HttpsReceiver, ReceivedRequest, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

const DAY_SECONDS = 24 * 3600;

/**
 * Secret rotation with overlap (ADR 0026), end to end: the API, the engine and a real HTTPS
 * receiver. `webhook-signature` is checked with the `standardwebhooks` library from npm,
 * unmodified, holding one secret at a time, as a receiver does while it switches;
 * `X-SVC-Signature-256` by the spec's rule (6.3).
 */
describe('POST /v1/webhooks/{id}/secret/rotate', () => {
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

  const rotate = (key: string, endpointId: string, json: unknown = {}) =>
    http(stack.api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/secret/rotate`, { key, json });
  const read = (key: string, endpointId: string) =>
    http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpointId}`, { key });

  /** The delivery of this event to the receiver (first attempt). */
  const deliveryOf = (envelope: EventEnvelope): Promise<ReceivedRequest> =>
    waitFor(
      () =>
        Promise.resolve(
          receiver.requests.find((request) => request.headers['webhook-id'] === envelope.id),
        ),
      { what: `the delivery of ${envelope.id}` },
    );

  /** Whether a receiver holding only `secret` accepts the delivery's webhook-signature. */
  const standardVerifies = (request: ReceivedRequest, secret: string): boolean => {
    const webhook = secret.startsWith('whsec_')
      ? new Webhook(secret)
      : new Webhook(secret, { format: 'raw' });
    try {
      webhook.verify(request.rawBody.toString('utf8'), request.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };
  const specVerifies = (request: ReceivedRequest, secret: string): boolean =>
    verifySignature(request.rawBody, request.headers['x-svc-signature-256'] as string, secret);
  const signatureCount = (request: ReceivedRequest): number =>
    (request.headers['webhook-signature'] as string).split(' ').length;

  /** A tenant and an endpoint of it at its own path, registered with a plain secret. */
  async function endpointAt(path: string) {
    const { tenantId, key } = await stack.newTenant();
    const { id, secret } = await stack.registerEndpoint(key, `${receiver.url}${path}`);
    return { tenantId, key, id, oldSecret: secret };
  }

  it('generates a whsec_ secret shown once; both secrets sign webhook-signature during the overlap, the new one X-SVC-Signature-256', async () => {
    const { tenantId, key, id, oldSecret } = await endpointAt('/overlap');
    const before = Date.now();

    const rotated = await rotate(key, id);

    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(newSecret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const expiresAt = Date.parse(rotated.body.previous_secret_expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + DAY_SECONDS * 1000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + DAY_SECONDS * 1000);
    expect(rotated.body.endpoint).toMatchObject({
      id,
      status: 'active',
      previous_secret_expires_at: rotated.body.previous_secret_expires_at,
    });

    const envelope = await stack.publish(tenantId);
    const delivery = await deliveryOf(envelope);
    expect(signatureCount(delivery)).toBe(2);
    expect(standardVerifies(delivery, oldSecret)).toBe(true);
    expect(standardVerifies(delivery, newSecret)).toBe(true);
    expect(specVerifies(delivery, newSecret)).toBe(true);
    expect(specVerifies(delivery, oldSecret)).toBe(false);

    // Never shown again: not on a read, not in a list.
    const again = await read(key, id);
    expect(again.body).toEqual({
      ...rotated.body.endpoint,
      previous_secret_expires_at: rotated.body.previous_secret_expires_at,
    });
    const list = await http(stack.api.baseUrl, 'GET', '/v1/webhooks', { key });
    for (const text of [again.text, list.text]) {
      expect(text).not.toContain(newSecret);
      expect(text).not.toContain(newSecret.slice('whsec_'.length));
      expect(text).not.toMatch(/"secret"/);
    }
  });

  it('with overlap_seconds 0 and a secret of its own, the old secret stops at once and the given secret is not echoed', async () => {
    const { tenantId, key, id, oldSecret } = await endpointAt('/no-overlap');
    const newSecret = 'a-plain-secret-of-my-own-0001';

    const rotated = await rotate(key, id, { secret: newSecret, overlap_seconds: 0 });

    expect(rotated.status).toBe(200);
    expect(rotated.body.previous_secret_expires_at).toBeNull();
    expect(rotated.body).not.toHaveProperty('secret');
    expect(rotated.body.endpoint).not.toHaveProperty('previous_secret_expires_at');
    expect(rotated.text).not.toContain(newSecret);

    const delivery = await deliveryOf(await stack.publish(tenantId));
    expect(signatureCount(delivery)).toBe(1);
    expect(standardVerifies(delivery, newSecret)).toBe(true);
    expect(standardVerifies(delivery, oldSecret)).toBe(false);
    expect(specVerifies(delivery, newSecret)).toBe(true);
    expect(specVerifies(delivery, oldSecret)).toBe(false);
  });

  it('after the overlap ends only the new secret signs, with no job or timer in between', async () => {
    const { tenantId, key, id, oldSecret } = await endpointAt('/short-overlap');
    // Long enough for the first delivery to go out within it, even on a loaded machine.
    const rotated = await rotate(key, id, { overlap_seconds: 5 });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    const expiresAt = Date.parse(rotated.body.previous_secret_expires_at);

    const during = await deliveryOf(await stack.publish(tenantId));
    // Sent before the overlap ended (it is signed with the send time): both verify.
    expect(Number(during.headers['webhook-timestamp']) * 1000).toBeLessThan(expiresAt);
    expect(standardVerifies(during, oldSecret)).toBe(true);
    expect(standardVerifies(during, newSecret)).toBe(true);

    await waitFor(() => Promise.resolve(Date.now() > expiresAt + 100), {
      timeoutMs: 10_000,
      what: 'the end of the overlap',
    });
    const after = await deliveryOf(await stack.publish(tenantId));
    expect(signatureCount(after)).toBe(1);
    expect(standardVerifies(after, newSecret)).toBe(true);
    expect(standardVerifies(after, oldSecret)).toBe(false);
    expect(specVerifies(after, newSecret)).toBe(true);
    // The resource no longer shows an overlap.
    expect((await read(key, id)).body).not.toHaveProperty('previous_secret_expires_at');
  });

  it('a PATCH of the secret during an overlap replaces both secrets at once', async () => {
    const { tenantId, key, id, oldSecret } = await endpointAt('/patched');
    const rotated = await rotate(key, id);
    const rotatedSecret = rotated.body.secret as string;
    const patchedSecret = 'patched-secret-replacing-both-01';

    const patched = await http(stack.api.baseUrl, 'PATCH', `/v1/webhooks/${id}`, {
      key,
      json: { secret: patchedSecret },
    });

    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('previous_secret_expires_at');
    const delivery = await deliveryOf(await stack.publish(tenantId));
    expect(signatureCount(delivery)).toBe(1);
    expect(standardVerifies(delivery, patchedSecret)).toBe(true);
    expect(standardVerifies(delivery, rotatedSecret)).toBe(false);
    expect(standardVerifies(delivery, oldSecret)).toBe(false);
    expect(specVerifies(delivery, patchedSecret)).toBe(true);
  });

  it('a second rotation during an overlap drops the oldest secret: at most two sign', async () => {
    const { tenantId, key, id, oldSecret } = await endpointAt('/twice');
    const first = await rotate(key, id);
    const second = await rotate(key, id);
    expect(second.status).toBe(200);

    const delivery = await deliveryOf(await stack.publish(tenantId));
    expect(signatureCount(delivery)).toBe(2);
    expect(standardVerifies(delivery, second.body.secret)).toBe(true);
    expect(standardVerifies(delivery, first.body.secret)).toBe(true);
    expect(standardVerifies(delivery, oldSecret)).toBe(false);
  });

  it("is a 404 for another tenant's endpoint and for another environment's, and changes nothing", async () => {
    const { tenantId, key, id, oldSecret } = await endpointAt('/not-yours');
    const { key: otherTenant } = await stack.newTenant();
    const { key: ownSandbox } = await new ApiKeysService(stack.api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    });

    for (const stranger of [otherTenant, ownSandbox]) {
      const refused = await rotate(stranger, id);
      expect(refused.status).toBe(404);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.text).not.toMatch(/whsec_/);
    }
    expect(await rotate(key, 'wh_01m7zsng2qwqh89sat5d7t1vpt')).toMatchObject({ status: 404 });

    const rotations = await stack.api.dataSource.query(
      `SELECT 1 FROM events WHERE stream_id = $1 AND type = 'webhook_endpoint.secret_rotated'`,
      [id],
    );
    expect(rotations).toHaveLength(0);
    const delivery = await deliveryOf(await stack.publish(tenantId));
    expect(signatureCount(delivery)).toBe(1);
    expect(specVerifies(delivery, oldSecret)).toBe(true);
  });

  it('needs the webhooks:manage scope', async () => {
    const { id } = await endpointAt('/scope');
    const { key: reader } = await stack.api.newTenantWithKey(['tenants:read']);
    const refused = await rotate(reader, id);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('insufficient_scope');
  });

  it('refuses a bad overlap or secret with a problem naming the field, and rotates nothing', async () => {
    const { key, id } = await endpointAt('/refused');
    const cases: [unknown, string][] = [
      [{ overlap_seconds: -1 }, 'overlap_seconds'],
      [{ overlap_seconds: 7 * DAY_SECONDS + 1 }, 'overlap_seconds'],
      [{ overlap_seconds: 1.5 }, 'overlap_seconds'],
      [{ overlap_seconds: '86400' }, 'overlap_seconds'],
      [{ overlap_seconds: null }, 'overlap_seconds'],
      [{ secret: 'too-short' }, 'secret'],
      [{ secret: 'a secret with a tab\there' }, 'secret'],
      [{ secret: null }, 'secret'],
      [{ secret: 1234567890123456 }, 'secret'],
      [{ overlap: 60 }, 'overlap'],
    ];
    for (const [body, field] of cases) {
      const refused = await rotate(key, id, body);
      expect([body, refused.status]).toEqual([body, 400]);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.body.type).toBe('urn:svc:problem:invalid-request');
      expect(refused.body.errors.map((error: { field: string }) => error.field)).toEqual([field]);
    }
    const rotations = await stack.api.dataSource.query(
      `SELECT 1 FROM events WHERE stream_id = $1 AND type = 'webhook_endpoint.secret_rotated'`,
      [id],
    );
    expect(rotations).toHaveLength(0);

    // The bounds themselves are accepted: 0 and 7 days.
    const longest = await rotate(key, id, { overlap_seconds: 7 * DAY_SECONDS });
    expect(longest.status).toBe(200);
    expect(Date.parse(longest.body.previous_secret_expires_at)).toBeGreaterThan(
      Date.now() + 7 * DAY_SECONDS * 1000 - 60_000,
    );
    expect((await rotate(key, id, { overlap_seconds: 0 })).status).toBe(200);
  });

  it('is documented in the OpenAPI document as it answers', async () => {
    const { key, id } = await endpointAt('/documented');
    const document = (await http(stack.api.baseUrl, 'GET', '/v1/openapi.json')).body;
    const operation = document.paths['/v1/webhooks/{id}/secret/rotate'].post;
    expect(operation.security).toEqual([{ api_key: [] }]);
    expect(operation.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/RotateSecretRequest',
    );
    expect(operation.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/RotateSecretResponse',
    );
    for (const status of ['400', '401', '403', '404', '409']) {
      expect(operation.responses[status].content['application/problem+json']).toBeDefined();
    }
    const request = document.components.schemas.RotateSecretRequest;
    expect(request.required ?? []).toEqual([]);
    expect(request.properties.overlap_seconds).toMatchObject({
      type: 'integer',
      minimum: 0,
      maximum: 7 * DAY_SECONDS,
      default: DAY_SECONDS,
    });
    expect(request.properties.secret).toMatchObject({ minLength: 16, maxLength: 256 });
    expect(document.components.schemas.RotateSecretResponse.required.sort()).toEqual([
      'endpoint',
      'previous_secret_expires_at',
    ]);

    const ajv = new Ajv({ strict: false });
    ajv.addFormat('uri', (value: string) => URL.canParse(value));
    ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
    ajv.addSchema(document, 'openapi.json');
    const validate = ajv.getSchema('openapi.json#/components/schemas/RotateSecretResponse')!;
    for (const body of [{}, { secret: 'documented-rotated-secret-1', overlap_seconds: 0 }]) {
      const answer = await rotate(key, id, body);
      expect(answer.status).toBe(200);
      expect([body, validate(answer.body), validate.errors]).toEqual([body, true, null]);
    }
  });

  it('records the rotation as an event with the secrets sealed, never in plaintext', async () => {
    const { key, id, oldSecret } = await endpointAt('/sealed');
    const rotated = await rotate(key, id);
    const newSecret = rotated.body.secret as string;

    const [event] = await stack.api.dataSource.query(
      `SELECT data, metadata FROM events WHERE stream_id = $1 AND type = 'webhook_endpoint.secret_rotated'`,
      [id],
    );
    expect(event.data).toMatchObject({
      endpoint_id: id,
      previous_secret_expires_at: rotated.body.previous_secret_expires_at,
    });
    expect(event.metadata).toMatchObject({ actor: { kind: 'api_key' } });
    const [row] = await stack.api.dataSource.query(
      'SELECT * FROM webhook_endpoints WHERE id = $1',
      [id],
    );
    for (const stored of [JSON.stringify(event), JSON.stringify(row)]) {
      expect(stored).not.toContain(newSecret);
      expect(stored).not.toContain(newSecret.slice('whsec_'.length));
      expect(stored).not.toContain(oldSecret);
    }
  });
});
