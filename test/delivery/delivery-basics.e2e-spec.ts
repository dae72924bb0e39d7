import { ApiKeysService } from '@svc/identity';
import { verifySignature } from '@svc/signing';
import { createHmac } from 'node:crypto';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { http } from '../support';
import { waitFor } from '../support/wait-for';

describe('delivering an event (spec 6.1, 6.3)', () => {
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

  it('POSTs the envelope, signed over its exact bytes, and records the success', async () => {
    const { tenantId, key } = await stack.newTenant();
    const endpoint = await stack.registerEndpoint(key, `${receiver.url}/hooks/svc`, {
      secret: 'known-vector-secret-0001',
    });
    const envelope = await stack.publish(tenantId, 'alert.created', {
      alert_id: 'alr_1',
      severity: 'high',
    });

    const [request] = await receiver.waitForRequests(1);
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/svc');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^svc-webhooks\//);
    expect(request.headers['x-svc-event-id']).toBe(envelope.id);
    expect(request.headers['x-svc-event-type']).toBe('alert.created');
    expect(request.headers['x-svc-delivery-id']).toMatch(/^del_/);
    expect(JSON.parse(request.rawBody.toString('utf8'))).toEqual(envelope);

    const header = request.headers['x-svc-signature-256'] as string;
    const expected = `sha256=${createHmac('sha256', 'known-vector-secret-0001').update(request.rawBody).digest('hex')}`;
    expect(header).toBe(expected);
    expect(verifySignature(request.rawBody, header, 'known-vector-secret-0001')).toBe(true);
    expect(verifySignature(request.rawBody, header, 'another-secret-00001')).toBe(false);

    const deliveries = await waitFor(async () => {
      const response = await http(
        stack.api.baseUrl,
        'GET',
        `/v1/events/${envelope.id}/deliveries`,
        { key },
      );
      return response.body.data[0]?.status === 'succeeded' ? response.body.data : null;
    });
    expect(deliveries).toEqual([
      expect.objectContaining({
        event_id: envelope.id,
        endpoint_id: endpoint.id,
        status: 'succeeded',
        attempts: 1,
      }),
    ]);
    const attempts = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpoint.id}/attempts`, {
      key,
    });
    expect(attempts.body.data).toEqual([
      expect.objectContaining({
        event_id: envelope.id,
        attempt: 1,
        outcome: 'succeeded',
        status_code: 200,
        error_kind: null,
      }),
    ]);
  });
  it("delivers the platform's (live) events only to live endpoints, never to a sandbox key's (ADR 0018)", async () => {
    const { tenantId, key } = await stack.newTenant();
    const { key: sandbox } = await new ApiKeysService(stack.api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    });
    const testEndpoint = await stack.registerEndpoint(sandbox, `${receiver.url}/sandbox`);
    const liveEndpoint = await stack.registerEndpoint(key, `${receiver.url}/live`);
    const before = receiver.requests.length;
    const envelope = await stack.publish(tenantId, 'alert.created');

    await receiver.waitForRequests(before + 1);
    const deliveries = await waitFor(async () => {
      const rows = await stack.api.dataSource.query(
        'SELECT endpoint_id, status FROM deliveries WHERE tenant_id = $1 AND event_id = $2',
        [tenantId, envelope.id],
      );
      return rows.length > 0 && rows.every((r: { status: string }) => r.status === 'succeeded')
        ? rows
        : null;
    });
    expect(deliveries).toEqual([{ endpoint_id: liveEndpoint.id, status: 'succeeded' }]);
    expect(receiver.requests.slice(before).map((r) => r.path)).toEqual(['/live']);

    const asSandbox = await http(stack.api.baseUrl, 'GET', `/v1/events/${envelope.id}/deliveries`, {
      key: sandbox,
    });
    expect(asSandbox.body.data).toEqual([]);
    const attempts = await http(
      stack.api.baseUrl,
      'GET',
      `/v1/webhooks/${testEndpoint.id}/attempts`,
      { key: sandbox },
    );
    expect(attempts.status).toBe(200);
    expect(attempts.body.data).toEqual([]);
    const asLive = await http(stack.api.baseUrl, 'GET', `/v1/events/${envelope.id}/deliveries`, {
      key,
    });
    expect(asLive.body.data.map((d: { endpoint_id: string }) => d.endpoint_id)).toEqual([
      liveEndpoint.id,
    ]);
  });
});
