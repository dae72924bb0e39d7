import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import {
  EVENT_CATALOGUE,
  REJECTION_REASON_HEADER,
  SubjectScheme,
  validateEnvelope,
  type EventEnvelope,
} from '@svc/contracts';
import { newEventEnvelope } from '@svc/event-publisher';
import { ApiKeysService } from '@svc/identity';
import { operationalJetStreamNames } from '@svc/messaging';
import { verifySignature } from '@svc/signing';
import { changeEndpoint, decideDegrade } from '@svc/webhook-endpoints';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { http } from '../support';
import { DeliveryStack, RunningEngine, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, ReceivedRequest, startHttpsReceiver } from '../support/https-receiver';
import { metricValue } from '../support/metric-value';
import { waitFor } from '../support/wait-for';

interface PublishedOperationalEvent {
  subject: string;
  msgId: string | undefined;
  envelope: EventEnvelope;
}

/**
 * Operational events (issue 13, ADR 0030): an endpoint degraded, disabled or reactivated and a
 * delivery abandoned are published on `<root>.ops.<tenant_id>.<type>` in the platform's envelope,
 * for the platform's own services, and delivered, signed, to the tenant's endpoints subscribed to
 * `webhook.*`; never to another tenant, never to the other environment, never forged by a
 * platform publisher; and an engine that dies between the commit and the publish loses none.
 */
describe('operational events', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;
  let js: JetStreamClient;
  let subjects: SubjectScheme;
  let opsStream: string;
  /** The engine running now: one test stops it and starts another. */
  let engine: RunningEngine;
  const ajv = new Ajv2020({ strict: true });
  addFormats(ajv);

  beforeAll(async () => {
    stack = await startDeliveryStack({
      DELIVERY_MAX_ATTEMPTS: '3',
      DELIVERY_RETRY_SCHEDULE: '100ms',
    });
    receiver = await startHttpsReceiver({
      behaviour: (request) =>
        request.path.startsWith('/failing')
          ? { status: 500 }
          : request.path.startsWith('/gone')
            ? { status: 410 }
            : { status: 200 },
    });
    js = jetstream(stack.nats);
    subjects = new SubjectScheme(stack.settings.subjectRoot);
    opsStream = operationalJetStreamNames(stack.settings).stream;
    engine = stack.engine;
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  /** Everything published on one tenant's ops subjects so far, read by a consumer of the test's. */
  async function operationalEventsOf(tenantId: string): Promise<PublishedOperationalEvent[]> {
    const consumer = await js.consumers.get(opsStream, {
      filter_subjects: subjects.operationalFilterOf(tenantId),
    });
    try {
      const pending = (await consumer.info()).num_pending;
      const events: PublishedOperationalEvent[] = [];
      if (pending === 0) {
        return events;
      }
      for await (const message of await consumer.fetch({ max_messages: pending, expires: 2000 })) {
        events.push({
          subject: message.subject,
          msgId: message.headers?.get('Nats-Msg-Id'),
          envelope: message.json<EventEnvelope>(),
        });
        if (events.length === pending) {
          break;
        }
      }
      return events;
    } finally {
      await consumer.delete().catch(() => undefined);
    }
  }

  const waitForOperationalEvent = (
    tenantId: string,
    match: (event: EventEnvelope) => boolean,
    what: string,
  ) =>
    waitFor(async () => (await operationalEventsOf(tenantId)).find((e) => match(e.envelope)), {
      what,
      intervalMs: 200,
    });

  const requestsTo = (path: string) => receiver.requests.filter((r) => r.path === path);
  const bodyOf = (request: ReceivedRequest) =>
    JSON.parse(request.rawBody.toString('utf8')) as EventEnvelope;
  const matchesCatalogue = (envelope: EventEnvelope) =>
    ajv.compile(EVENT_CATALOGUE.find((entry) => entry.type === envelope.type)!.dataSchema)(
      envelope.data,
    );

  async function sandboxKey(tenantId: string): Promise<string> {
    const { key } = await new ApiKeysService(stack.api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    });
    return key;
  }

  describe('a receiver that always fails', () => {
    let tenantId: string;
    let key: string;
    let failing: { id: string };
    let watcher: { id: string; secret: string };
    let failingEvent: EventEnvelope;
    let other: { tenantId: string; key: string };

    beforeAll(async () => {
      ({ tenantId, key } = await stack.newTenant());
      failing = await stack.registerEndpoint(key, `${receiver.url}/failing`, {
        events: ['alert.*'],
      });
      watcher = await stack.registerEndpoint(key, `${receiver.url}/watcher`, {
        events: ['webhook.*'],
      });
      await stack.registerEndpoint(await sandboxKey(tenantId), `${receiver.url}/sandbox-watcher`, {
        events: ['webhook.*'],
      });
      other = await stack.newTenant();
      await stack.registerEndpoint(other.key, `${receiver.url}/other-watcher`, {
        events: ['webhook.*'],
      });
      await stack.registerEndpoint(other.key, `${receiver.url}/failing-other`, {
        events: ['alert.*'],
      });
      failingEvent = await stack.publish(tenantId, 'alert.created');
    });

    it('abandons the delivery and degrades the endpoint, and both are published on the ops subjects in the documented envelope', async () => {
      const abandoned = await waitForOperationalEvent(
        tenantId,
        (e) => e.type === 'webhook.delivery.abandoned',
        'webhook.delivery.abandoned',
      );
      const degraded = await waitForOperationalEvent(
        tenantId,
        (e) => e.type === 'webhook.endpoint.degraded',
        'webhook.endpoint.degraded',
      );

      for (const published of [abandoned, degraded]) {
        expect(published.subject).toBe(subjects.operational(tenantId, published.envelope.type));
        expect(published.msgId).toBe(published.envelope.id);
        expect(validateEnvelope(published.envelope)).toMatchObject({ ok: true });
        expect(matchesCatalogue(published.envelope)).toBe(true);
        expect(published.envelope.tenant_id).toBe(tenantId);
      }
      const [delivery] = (
        await http(stack.api.baseUrl, 'GET', `/v1/events/${failingEvent.id}/deliveries`, { key })
      ).body.data as { id: string; endpoint_id: string; status: string }[];
      expect(delivery).toMatchObject({ endpoint_id: failing.id, status: 'abandoned' });
      expect(abandoned.envelope.data).toEqual({
        endpoint_id: failing.id,
        url: `${receiver.url}/failing`,
        environment: 'live',
        reason: 'attempts_exhausted',
        delivery_id: delivery.id,
        event_id: failingEvent.id,
        event_type: 'alert.created',
        attempts: 3,
        status_code: 500,
        error_kind: expect.any(String),
        at: expect.any(String),
      });
      expect(degraded.envelope.data).toEqual({
        endpoint_id: failing.id,
        url: `${receiver.url}/failing`,
        environment: 'live',
        reason: 'delivery_abandoned',
        delivery_id: delivery.id,
        at: expect.any(String),
      });
      expect(JSON.stringify([abandoned, degraded])).not.toMatch(/secret/i);
    });

    it('publishes webhook.endpoint.reactivated when the endpoint is recovered', async () => {
      await waitForOperationalEvent(
        tenantId,
        (e) => e.type === 'webhook.endpoint.degraded',
        'degraded',
      );
      const recovered = await http(
        stack.api.baseUrl,
        'POST',
        `/v1/webhooks/${failing.id}/recover`,
        { key, json: {} },
      );
      expect(recovered.status).toBe(200);

      const reactivated = await waitForOperationalEvent(
        tenantId,
        (e) => e.type === 'webhook.endpoint.reactivated',
        'webhook.endpoint.reactivated',
      );
      expect(reactivated.envelope.data).toMatchObject({
        endpoint_id: failing.id,
        environment: 'live',
        reason: 'recovered',
        delivery_id: null,
      });
      expect(matchesCatalogue(reactivated.envelope)).toBe(true);
    });

    it('delivers the operational events, signed, to the tenant endpoint subscribed to webhook.*', async () => {
      const published = await waitFor(
        async () => {
          const events = await operationalEventsOf(tenantId);
          return events.length >= 3 ? events : null;
        },
        { what: 'three operational events' },
      );
      const received = await waitFor(
        () =>
          Promise.resolve(
            requestsTo('/watcher').length >= published.length ? requestsTo('/watcher') : null,
          ),
        { what: 'their deliveries to the watcher' },
      );

      expect(received.map((r) => bodyOf(r).id).sort()).toEqual(
        published.map((e) => e.envelope.id).sort(),
      );
      for (const request of received) {
        const body = bodyOf(request);
        expect(
          verifySignature(
            request.rawBody,
            request.headers['x-svc-signature-256'] as string,
            watcher.secret,
          ),
        ).toBe(true);
        expect(request.headers['x-svc-event-type']).toBe(body.type);
        expect(request.headers['x-svc-event-id']).toBe(body.id);
        // The body is the event as published, byte for byte in content.
        expect(body).toEqual(published.find((e) => e.envelope.id === body.id)!.envelope);
      }
      // The failing endpoint subscribed to alert.* only: it was never told of itself.
      expect(requestsTo('/failing').every((r) => bodyOf(r).type === 'alert.created')).toBe(true);
    });

    it("tells no other tenant, and not the tenant's sandbox endpoints, of a live endpoint", async () => {
      await waitFor(() => Promise.resolve(requestsTo('/watcher').length >= 3 || null), {
        what: 'the watcher to be told',
      });
      expect(await operationalEventsOf(other.tenantId)).toEqual([]);
      expect(requestsTo('/other-watcher')).toEqual([]);
      expect(requestsTo('/sandbox-watcher')).toEqual([]);
    });
  });

  it('tells of a 410: webhook.endpoint.disabled and webhook.delivery.abandoned, reason gone', async () => {
    const { tenantId, key } = await stack.newTenant();
    const gone = await stack.registerEndpoint(key, `${receiver.url}/gone`, { events: ['alert.*'] });
    await stack.publish(tenantId, 'alert.created');

    const disabled = await waitForOperationalEvent(
      tenantId,
      (e) => e.type === 'webhook.endpoint.disabled',
      'webhook.endpoint.disabled',
    );
    expect(disabled.envelope.data).toMatchObject({
      endpoint_id: gone.id,
      reason: 'gone',
      status_code: 410,
      environment: 'live',
    });
    expect(matchesCatalogue(disabled.envelope)).toBe(true);
    const abandoned = await waitForOperationalEvent(
      tenantId,
      (e) => e.type === 'webhook.delivery.abandoned',
      'webhook.delivery.abandoned',
    );
    expect(abandoned.envelope.data).toMatchObject({
      endpoint_id: gone.id,
      reason: 'gone',
      attempts: 1,
      status_code: 410,
    });
  });

  it('publishes what an engine killed after the commit and before the publish left behind, once an engine runs again', async () => {
    const { tenantId, key } = await stack.newTenant();
    const quiet = await stack.registerEndpoint(key, `${receiver.url}/quiet`, {
      events: ['alert.*'],
    });
    // No engine runs: what it would have published stays in the outbox, in the database.
    await engine.close();
    await stack.api.dataSource.transaction((manager) =>
      changeEndpoint(
        manager,
        { id: quiet.id },
        (state) => (state ? decideDegrade({ deliveryId: 'del_lost' }, state, new Date()) : []),
        (state) => ({ tenant_id: state.tenantId, actor: { kind: 'delivery_engine' } }),
      ),
    );
    const [{ waiting }]: { waiting: number }[] = await stack.api.dataSource.query(
      'SELECT count(*)::int AS waiting FROM operational_events_outbox',
    );
    expect(waiting).toBeGreaterThanOrEqual(1);

    engine = await stack.startEngine();

    const degraded = await waitForOperationalEvent(
      tenantId,
      (e) => e.type === 'webhook.endpoint.degraded',
      'the degraded event left behind',
    );
    expect(degraded.envelope.data).toMatchObject({
      endpoint_id: quiet.id,
      delivery_id: 'del_lost',
    });
  });

  it("tells a sandbox endpoint's trouble to the tenant's sandbox endpoints only", async () => {
    const { tenantId, key } = await stack.newTenant();
    const sandbox = await sandboxKey(tenantId);
    const sandboxEndpoint = await stack.registerEndpoint(sandbox, `${receiver.url}/sandbox-one`, {
      events: ['webhook.*'],
    });
    const sandboxWatcher = await stack.registerEndpoint(sandbox, `${receiver.url}/sandbox-two`, {
      events: ['webhook.endpoint.degraded'],
    });
    await stack.registerEndpoint(key, `${receiver.url}/live-watcher`, { events: ['webhook.*'] });
    await stack.api.dataSource.transaction((manager) =>
      changeEndpoint(
        manager,
        { id: sandboxEndpoint.id },
        (state) => (state ? decideDegrade({ deliveryId: 'del_sandbox' }, state, new Date()) : []),
        (state) => ({ tenant_id: state.tenantId, actor: { kind: 'delivery_engine' } }),
      ),
    );

    const [request] = await waitFor(
      () => Promise.resolve(requestsTo('/sandbox-two').length > 0 && requestsTo('/sandbox-two')),
      { what: 'the sandbox watcher to be told' },
    );
    expect(bodyOf(request)).toMatchObject({
      type: 'webhook.endpoint.degraded',
      data: { endpoint_id: sandboxEndpoint.id, environment: 'test' },
    });
    expect(
      verifySignature(
        request.rawBody,
        request.headers['x-svc-signature-256'] as string,
        sandboxWatcher.secret,
      ),
    ).toBe(true);
    await waitFor(() => Promise.resolve(requestsTo('/sandbox-one').length > 0), {
      what: 'the sandbox endpoint itself to be told',
    });
    expect(requestsTo('/live-watcher')).toEqual([]);
  });

  it('dead-letters a webhook.* event a platform publisher puts on the events subject (reserved-type)', async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/forgery-watcher`, { events: ['webhook.*'] });
    const jsm = await jetstreamManager(stack.nats);
    const parkedBefore = (await jsm.streams.info(stack.settings.deadLetterStream)).state.messages;
    const rejectedBefore = await metricValue(
      engine.managementUrl,
      'svc_delivery_events_rejected_total',
      'reason="reserved-type"',
    );

    const forged = newEventEnvelope(tenantId, 'webhook.endpoint.degraded', {
      endpoint_id: 'wh_forged',
      url: 'https://evil.example/',
      environment: 'live',
      reason: 'delivery_abandoned',
      delivery_id: 'del_forged',
      at: new Date().toISOString(),
    });
    await stack.publisher.publish(forged);

    const parked = await waitFor(async () => {
      const info = await jsm.streams.info(stack.settings.deadLetterStream);
      return info.state.messages > parkedBefore ? info.state.last_seq : null;
    });
    const message = (await jsm.streams.getMessage(stack.settings.deadLetterStream, {
      seq: parked,
    }))!;
    expect(message.subject).toBe(subjects.deadLetter('reserved-type'));
    expect(message.header.get(REJECTION_REASON_HEADER)).toBe('reserved-type');
    expect(message.json<EventEnvelope>().id).toBe(forged.id);
    // Counted once parked and recorded, just after the dead-letter stream has it.
    await waitFor(
      async () =>
        (await metricValue(
          engine.managementUrl,
          'svc_delivery_events_rejected_total',
          'reason="reserved-type"',
        )) ===
        rejectedBefore + 1,
      { what: 'the rejection to be counted' },
    );
    expect(requestsTo('/forgery-watcher')).toEqual([]);
    expect(await operationalEventsOf(tenantId)).toEqual([]);
  });
});
