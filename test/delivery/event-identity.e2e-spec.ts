import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type EventEnvelope, SubjectScheme } from '@svc/contracts';
import { newEventEnvelope } from '@svc/event-publisher';
import { metricValue } from '../support/metric-value';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

/**
 * Event identity is (tenant_id, event id): what four faults seen from outside showed, each as a
 * test (issue 8). Copies of an event are published as a publisher without Nats-Msg-Id does, or
 * one after JetStream's duplicate window: JetStream stores every copy.
 */
describe('event identity per tenant, idempotent ingest, every POST recorded', () => {
  let stack: DeliveryStack;
  const receivers: HttpsReceiver[] = [];
  const receiver = async (...args: Parameters<typeof startHttpsReceiver>) => {
    const started = await startHttpsReceiver(...args);
    receivers.push(started);
    return started;
  };

  /** Publishes a copy the way a publisher without Nats-Msg-Id does: JetStream keeps every one. */
  const publishCopy = async (envelope: EventEnvelope, body = JSON.stringify(envelope)) => {
    const subject = new SubjectScheme(stack.settings.subjectRoot).event(
      envelope.tenant_id,
      envelope.type,
    );
    await jetstream(stack.nats).publish(subject, body);
  };

  const attemptsOf = async (endpointId: string): Promise<{ event_id: string }[]> =>
    stack.api.dataSource.query(
      'SELECT event_id FROM delivery_attempts WHERE endpoint_id = $1 ORDER BY position',
      [endpointId],
    );

  beforeAll(async () => {
    stack = await startDeliveryStack({ DELIVERY_RETRY_SCHEDULE: '200ms' });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack.close();
  });

  it("never sends one tenant's body to another tenant's endpoint, retries included", async () => {
    const x = await stack.newTenant();
    const y = await stack.newTenant();
    const atX = await receiver();
    // Y's endpoint fails the first attempt, so its body is read back from storage for the retry.
    const atY = await receiver({
      behaviour: (_request, index) => ({ status: index === 0 ? 500 : 200 }),
    });
    await stack.registerEndpoint(x.key, `${atX.url}/x`);
    const endpointY = await stack.registerEndpoint(y.key, `${atY.url}/y`);
    const fromX = newEventEnvelope(x.tenantId, 'alert.created', { secret: 'only-for-tenant-x' });
    const fromY = {
      ...newEventEnvelope(y.tenantId, 'alert.created', { note: 'tenant y' }),
      id: fromX.id,
    };

    await stack.publisher.publish(fromX);
    await atX.waitForRequests(1);
    await publishCopy(fromY);
    const atYRequests = await atY.waitForRequests(2);

    for (const request of atYRequests) {
      const body = request.rawBody.toString('utf8');
      expect(body).not.toContain('only-for-tenant-x');
      expect(JSON.parse(body)).toMatchObject({
        id: fromX.id,
        tenant_id: y.tenantId,
        data: { note: 'tenant y' },
      });
    }
    expect(atYRequests.map((r) => r.headers['x-svc-delivery-attempt'])).toEqual(['1', '2']);
    await waitFor(async () => (await attemptsOf(endpointY.id)).length === 2, {
      what: 'both attempts of Y to be recorded',
    });
    const [delivery] = await stack.api.dataSource.query(
      'SELECT status FROM deliveries WHERE tenant_id = $1 AND event_id = $2',
      [y.tenantId, fromX.id],
    );
    expect(delivery.status).toBe('succeeded');
  });

  it('acknowledges and counts a republished event once delivered, and never POSTs it again', async () => {
    const { tenantId, key } = await stack.newTenant();
    const target = await receiver();
    const endpoint = await stack.registerEndpoint(key, `${target.url}/again`);
    const event = newEventEnvelope(tenantId, 'alert.created', { id: 'alr_again' });
    const duplicatesBefore = await metricValue(
      stack.engine.managementUrl,
      'svc_delivery_events_duplicate_total',
    );

    await stack.publisher.publish(event);
    await target.waitForRequests(1);
    await waitFor(async () => (await attemptsOf(endpoint.id)).length === 1);
    // Key order differs: the same event to the engine, which compares content, not bytes.
    const { data, ...rest } = event;
    await publishCopy(event, JSON.stringify({ data, ...rest }));
    await waitFor(
      async () =>
        (await metricValue(stack.engine.managementUrl, 'svc_delivery_events_duplicate_total')) ===
        duplicatesBefore + 1,
      { what: 'the duplicate to be counted' },
    );

    expect(target.requests).toHaveLength(1);
    expect(await attemptsOf(endpoint.id)).toHaveLength(1);
  });

  it('parks a republished id with another body as conflicting-duplicate, delivering only the first', async () => {
    const { tenantId, key } = await stack.newTenant();
    const target = await receiver();
    const endpoint = await stack.registerEndpoint(key, `${target.url}/conflict`);
    const first = newEventEnvelope(tenantId, 'alert.created', { severity: 'low' });
    const jsm = await jetstreamManager(stack.nats);
    const parkedBefore = (await jsm.streams.info(stack.settings.deadLetterStream)).state.messages;

    await stack.publisher.publish(first);
    await waitFor(async () => (await attemptsOf(endpoint.id)).length === 1);
    await publishCopy({ ...first, data: { severity: 'critical' } });
    const parked = await waitFor(async () => {
      const info = await jsm.streams.info(stack.settings.deadLetterStream);
      return info.state.messages > parkedBefore ? info.state.last_seq : null;
    });

    const message = await jsm.streams.getMessage(stack.settings.deadLetterStream, { seq: parked });
    expect(message!.header.get('Svc-Rejection-Reason')).toBe('conflicting-duplicate');
    expect(message!.json<EventEnvelope>()).toMatchObject({
      id: first.id,
      data: { severity: 'critical' },
    });
    await waitFor(
      async () =>
        (await metricValue(
          stack.engine.managementUrl,
          'svc_delivery_events_rejected_total',
          'conflicting-duplicate',
        )) >= 1,
    );
    expect(target.requests).toHaveLength(1);
    expect(JSON.parse(target.requests[0].rawBody.toString())).toMatchObject({
      data: { severity: 'low' },
    });
  });

  it('sends two copies of one event taken together by one engine once: the second waits for the first', async () => {
    const { tenantId, key } = await stack.newTenant();
    // Slow answers keep the first copy in flight while the second is taken: before EventsInHand,
    // neither saw the other's record in time and both were sent (recorded as concurrent).
    const target = await receiver({ behaviour: { delayMs: 300 } });
    const endpoint = await stack.registerEndpoint(key, `${target.url}/race`);
    const event = newEventEnvelope(tenantId, 'incident.created', { id: 'inc_race' });
    const duplicatesBefore = await metricValue(
      stack.engine.managementUrl,
      'svc_delivery_events_duplicate_total',
    );

    await publishCopy(event);
    await publishCopy(event);
    await waitFor(
      async () =>
        (await metricValue(stack.engine.managementUrl, 'svc_delivery_events_duplicate_total')) ===
        duplicatesBefore + 1,
      { what: 'the second copy to be counted as a duplicate' },
    );

    expect(target.requests).toHaveLength(1);
    const deliveries = await stack.api.dataSource.query(
      'SELECT id, status, attempts FROM deliveries WHERE endpoint_id = $1',
      [endpoint.id],
    );
    expect(deliveries).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 1 })]);
    expect(await attemptsOf(endpoint.id)).toHaveLength(1);
  });
});
