import { newId } from '@svc/contracts';
import { refoldDeliveryProjections } from '@svc/deliveries';
import { newEventEnvelope } from '@svc/event-publisher';
import { ApiKeysService } from '@svc/identity';
import { changeEndpoint, decideDisable } from '@svc/webhook-endpoints';
import Ajv from 'ajv';
import { ulid } from 'ulid';
import { http } from '../support';
import { DeliveryStack, startDeliveryStack } from '../support/delivery-harness';
import { HttpsReceiver, ReceivedRequest, startHttpsReceiver } from '../support/https-receiver';
import { waitFor } from '../support/wait-for';

const HOUR_MS = 3600_000;

/**
 * Replay (ADR 0029): one delivery, or every delivery of an endpoint in a time range, sent again
 * whatever its status, each re-send a `delivery.replayed` event; the engine sends them with the
 * same event id. Through the real API, engine, PostgreSQL and JetStream, to a real HTTPS receiver.
 */
describe('replay', () => {
  let stack: DeliveryStack;
  let receiver: HttpsReceiver;
  /** Paths whose receiver answers 500 for now. */
  const down = new Set<string>();
  /** Alerts whose deliveries are answered 500 for now, wherever they go. */
  const failingAlerts = new Set<string>();

  beforeAll(async () => {
    stack = await startDeliveryStack({ DELIVERY_MAX_ATTEMPTS: '2', WEBHOOK_REPLAY_LIMIT: '3' });
    receiver = await startHttpsReceiver({
      behaviour: (request) => {
        const body = request.rawBody.toString('utf8');
        if (down.has(request.path) || [...failingAlerts].some((alert) => body.includes(alert))) {
          return { status: 500 };
        }
        // The first delivery to /later is put off for an hour by its receiver.
        if (request.path === '/later' && requestsTo('/later').length === 1) {
          return { status: 503, headers: { 'retry-after': '3600' } };
        }
        return { status: 200 };
      },
    });
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  const requestsTo = (path: string): ReceivedRequest[] =>
    receiver.requests.filter((request) => request.path === path);

  const eventIdsTo = (path: string) =>
    requestsTo(path).map((request) => request.headers['x-svc-event-id'] as string);

  const replayOne = (key: string, deliveryId: string) =>
    http(stack.api.baseUrl, 'POST', `/v1/deliveries/${deliveryId}/replay`, { key });

  const replayRange = (
    key: string,
    endpointId: string,
    body: { from: string; to: string; cursor?: string },
  ) => http(stack.api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/replay`, { key, json: body });

  /** The delivery of an event, once `done` says it is where the test wants it. */
  function deliveryOf(
    key: string,
    eventId: string,
    done: (delivery: Record<string, any>) => boolean,
  ): Promise<Record<string, any>> {
    return waitFor(
      async () => {
        const [delivery] = (
          await http(stack.api.baseUrl, 'GET', `/v1/events/${eventId}/deliveries`, { key })
        ).body.data;
        return delivery && done(delivery) ? delivery : null;
      },
      { what: `the delivery of ${eventId}` },
    );
  }

  async function replayedEvents(deliveryIds: string[]) {
    return stack.api.dataSource.query<{ stream_id: string; data: Record<string, unknown> }[]>(
      `SELECT stream_id, data FROM events WHERE type = 'delivery.replayed' AND stream_id = ANY($1)
        ORDER BY position`,
      [deliveryIds],
    );
  }

  it('sends a succeeded delivery again, with the same event id, as its next attempt', async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/once`);
    const envelope = await stack.publish(tenantId);
    const delivered = await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded');
    expect(delivered.sequence).toBe(1);

    const response = await replayOne(key, delivered.id);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: delivered.id,
      event_id: envelope.id,
      // A replay keeps the delivery's number (ADR 0045).
      sequence: 1,
      status: 'pending',
      attempts: 1,
      completed_at: null,
    });
    const [first, again] = await waitFor(
      () => Promise.resolve(requestsTo('/once').length === 2 && requestsTo('/once')),
      { what: 'the replayed delivery' },
    );
    expect(again.headers['webhook-id']).toBe(envelope.id);
    expect(again.headers['x-svc-event-id']).toBe(envelope.id);
    expect(again.headers['x-svc-delivery-attempt']).toBe('2');
    expect(again.headers['x-svc-sequence']).toBe('1');
    expect(again.rawBody.equals(first.rawBody)).toBe(true);
    expect(
      await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded' && d.attempts === 2),
    ).toBeTruthy();
    const events = await replayedEvents([delivered.id]);
    expect(events).toEqual([
      {
        stream_id: delivered.id,
        data: expect.objectContaining({ delivery_id: delivered.id, status_before: 'succeeded' }),
      },
    ]);
  });

  it('sends an abandoned delivery again once its receiver is back, which makes the endpoint active', async () => {
    const { tenantId, key } = await stack.newTenant();
    const path = '/was-down';
    const { id: endpointId } = await stack.registerEndpoint(key, `${receiver.url}${path}`);
    down.add(path);
    const envelope = await stack.publish(tenantId);
    const abandoned = await deliveryOf(key, envelope.id, (d) => d.status === 'abandoned');
    expect(abandoned.attempts).toBe(2);
    const degraded = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpointId}`, { key });
    expect(degraded.body.status).toBe('degraded');
    down.delete(path);

    expect((await replayOne(key, abandoned.id)).status).toBe(200);

    const delivered = await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded');
    expect(delivered.attempts).toBe(3);
    expect(requestsTo(path).at(-1)?.headers['x-svc-delivery-attempt']).toBe('3');
    const endpoint = await http(stack.api.baseUrl, 'GET', `/v1/webhooks/${endpointId}`, { key });
    expect(endpoint.body.status).toBe('active');
  });

  it('brings a pending delivery forward: its retry an hour away is made now', async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/later`);
    const envelope = await stack.publish(tenantId);
    const waiting = await deliveryOf(
      key,
      envelope.id,
      (d) => d.status === 'pending' && d.attempts === 1,
    );
    expect(new Date(waiting.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + HOUR_MS / 2);

    expect((await replayOne(key, waiting.id)).status).toBe(200);

    const delivered = await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded');
    expect(delivered.attempts).toBe(2);
    const [event] = await replayedEvents([waiting.id]);
    expect(event.data).toMatchObject({ status_before: 'pending' });
  });

  it('replays every delivery of an endpoint in a range, whatever its status, up to a cap per call, then goes on from the cursor', async () => {
    const { tenantId, key } = await stack.newTenant();
    const path = '/range';
    const { id: endpointId } = await stack.registerEndpoint(key, `${receiver.url}${path}`, {
      events: ['alert.*'],
    });
    await stack.registerEndpoint(key, `${receiver.url}/range-other`, { events: ['incident.*'] });
    const inRange = [];
    for (let index = 0; index < 3; index += 1) {
      inRange.push(await stack.publish(tenantId));
    }
    // One of them abandoned after its two attempts: replayed as well as the succeeded ones.
    failingAlerts.add('alr_range_flaky');
    const flaky = await stack.publish(tenantId, 'alert.created', { alert_id: 'alr_range_flaky' });
    inRange.push(flaky);
    await deliveryOf(key, flaky.id, (d) => d.status === 'abandoned');
    failingAlerts.delete('alr_range_flaky');
    // Its time is two hours ago: out of the range asked for.
    const older = {
      ...newEventEnvelope(tenantId, 'alert.created', { alert_id: 'alr_old' }),
      created_at: new Date(Date.now() - 2 * HOUR_MS).toISOString(),
    };
    await stack.publisher.publish(older);
    const otherEndpoints = await stack.publish(tenantId, 'incident.created', {
      incident_id: 'inc_1',
    });
    await waitFor(() => Promise.resolve(requestsTo(path).length === 6), {
      what: 'the first deliveries',
    });
    await waitFor(() => Promise.resolve(requestsTo('/range-other').length === 1), {
      what: 'the other endpoint’s delivery',
    });
    // A test event to the endpoint: not part of what a range replays.
    expect(
      (await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/test`, { key })).status,
    ).toBe(200);
    const range = {
      from: new Date(Date.now() - HOUR_MS).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    };

    const first = await replayRange(key, endpointId, range);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      replayed_deliveries: 3,
      more_to_replay: true,
      next_cursor: expect.any(String),
    });
    const second = await replayRange(key, endpointId, { ...range, cursor: first.body.next_cursor });
    expect(second.body).toEqual({
      replayed_deliveries: 1,
      more_to_replay: false,
      next_cursor: null,
    });

    const resent = await waitFor(
      () => Promise.resolve(requestsTo(path).length === 11 && eventIdsTo(path).slice(7)),
      { what: 'the replayed deliveries' },
    );
    expect(new Set(resent)).toEqual(new Set(inRange.map((envelope) => envelope.id)));
    for (const envelope of inRange) {
      // Each a new attempt of its delivery: the flaky one's third, the others' second.
      const expected = envelope === flaky ? 3 : 2;
      await deliveryOf(
        key,
        envelope.id,
        (d) => d.status === 'succeeded' && d.attempts === expected,
      );
    }
    expect(eventIdsTo(path).filter((id) => id === older.id)).toHaveLength(1);
    expect(requestsTo('/range-other')).toHaveLength(1);
    const ids = (
      await stack.api.dataSource.query<{ id: string }[]>(
        'SELECT id FROM deliveries WHERE event_id = ANY($1)',
        [[...inRange.map((envelope) => envelope.id), older.id, otherEndpoints.id]],
      )
    ).map((row) => row.id);
    const events = await replayedEvents(ids);
    expect(events).toHaveLength(4);
    expect(new Set(events.map((event) => event.stream_id)).size).toBe(4);

    // A range with nothing left in it: nothing replayed, nothing more.
    const empty = await replayRange(key, endpointId, {
      from: new Date(Date.now() - 10 * HOUR_MS).toISOString(),
      to: new Date(Date.now() - 5 * HOUR_MS).toISOString(),
    });
    expect(empty.body).toEqual({
      replayed_deliveries: 0,
      more_to_replay: false,
      next_cursor: null,
    });
  });

  it('is documented in the OpenAPI document as it answers', async () => {
    const document = (await http(stack.api.baseUrl, 'GET', '/v1/openapi.json')).body;
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addFormat('uri', (value: string) => URL.canParse(value));
    ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
    ajv.addSchema(document, 'openapi.json');
    const schema = (name: string) => ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
    const one = document.paths['/v1/deliveries/{delivery_id}/replay'].post;
    const range = document.paths['/v1/webhooks/{id}/replay'].post;
    expect(Object.keys(one.responses)).toEqual(
      expect.arrayContaining(['200', '401', '403', '404', '409', '410']),
    );
    expect(one.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/DeliveryResponse',
    );
    expect(range.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ReplayEndpointRequest',
    );
    expect(range.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ReplayEndpointResponse',
    );
    expect([...document.components.schemas.ReplayEndpointRequest.required].sort()).toEqual([
      'from',
      'to',
    ]);

    const { tenantId, key } = await stack.newTenant();
    const { id } = await stack.registerEndpoint(key, `${receiver.url}/documented`);
    const envelope = await stack.publish(tenantId);
    const delivery = await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded');
    const replayed = await replayOne(key, delivery.id);
    expect(schema('DeliveryResponse')(replayed.body)).toBe(true);
    await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded' && d.attempts === 2);
    const body = {
      from: new Date(Date.now() - HOUR_MS).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    };
    expect(schema('ReplayEndpointRequest')(body)).toBe(true);
    const ranged = await replayRange(key, id, body);
    expect(ranged.body).toMatchObject({ replayed_deliveries: 1 });
    expect(schema('ReplayEndpointResponse')(ranged.body)).toBe(true);
    await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded' && d.attempts === 3);
  });

  it('refuses a range that is empty, reversed, longer than the retention, or a foreign cursor', async () => {
    const { key } = await stack.newTenant();
    const { id } = await stack.registerEndpoint(key, `${receiver.url}/never`);
    const now = Date.now();
    const at = (offsetMs: number) => new Date(now + offsetMs).toISOString();
    const cases: [Record<string, unknown>, string][] = [
      [{ from: at(0), to: at(0) }, 'to'],
      [{ from: at(0), to: at(-1000) }, 'to'],
      [{ from: at(-31 * 24 * HOUR_MS), to: at(0) }, 'to'],
      [{ from: '2026-01-01', to: at(0) }, 'from'],
      [{ to: at(0) }, 'from'],
      [{ from: at(-1000), to: at(0), cursor: 'bm90LWEtY3Vyc29y' }, 'cursor'],
    ];
    for (const [body, field] of cases) {
      const response = await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${id}/replay`, {
        key,
        json: body,
      });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ field })]),
      );
    }
  });

  it("answers 404 for an unknown delivery, another tenant's, another environment's, and one whose endpoint was deleted", async () => {
    const { tenantId, key } = await stack.newTenant();
    const { id: endpointId } = await stack.registerEndpoint(key, `${receiver.url}/mine`);
    const envelope = await stack.publish(tenantId);
    const delivery = await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded');
    const other = await stack.newTenant();
    const { key: sandboxKey } = await new ApiKeysService(stack.api.dataSource).create({
      tenantId,
      scopes: ['webhooks:manage'],
      environment: 'test',
    });

    for (const [asKey, target] of [
      [key, `del_${ulid().toLowerCase()}`],
      [key, 'not-a-delivery'],
      [other.key, delivery.id],
      [sandboxKey, delivery.id],
    ] as const) {
      const response = await replayOne(asKey, target as string);
      expect(response.status).toBe(404);
      expect(response.body.detail).not.toMatch(/deleted/);
    }
    expect(
      (
        await replayRange(other.key, endpointId, {
          from: new Date(Date.now() - HOUR_MS).toISOString(),
          to: new Date().toISOString(),
        })
      ).status,
    ).toBe(404);

    await http(stack.api.baseUrl, 'DELETE', `/v1/webhooks/${endpointId}`, { key });
    const deleted = await replayOne(key, delivery.id);
    expect(deleted.status).toBe(404);
    expect(deleted.body.detail).toMatch(/was deleted/);
    expect(requestsTo('/mine')).toHaveLength(1);
  });

  it('answers 410 for a delivery past retention or whose event body is no longer stored', async () => {
    const { tenantId, key } = await stack.newTenant();
    await stack.registerEndpoint(key, `${receiver.url}/expired`);
    const envelope = await stack.publish(tenantId);
    const delivery = await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded');

    const ancient = `del_${ulid(Date.now() - 31 * 24 * HOUR_MS).toLowerCase()}`;
    const old = await replayOne(key, ancient);
    expect(old.status).toBe(410);
    expect(old.body).toMatchObject({ type: 'urn:svc:problem:expired', status: 410 });

    // As a partition of stored bodies dropped at the end of retention would leave it.
    await stack.api.dataSource.query(
      'DELETE FROM inbound_events WHERE tenant_id = $1 AND event_id = $2',
      [tenantId, envelope.id],
    );
    const bodiless = await replayOne(key, delivery.id);
    expect(bodiless.status).toBe(410);
    expect(bodiless.body.detail).toMatch(/no longer stored/);
    expect(await replayedEvents([delivery.id])).toEqual([]);
  });

  it('refuses to replay to a disabled endpoint until it is recovered', async () => {
    const { tenantId, key } = await stack.newTenant();
    const { id: endpointId } = await stack.registerEndpoint(key, `${receiver.url}/disabled`);
    const envelope = await stack.publish(tenantId);
    const delivery = await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded');
    await stack.api.dataSource.transaction((manager) =>
      changeEndpoint(
        manager,
        { id: endpointId },
        (state) => (state ? decideDisable({ deliveryId: newId('del') }, state, new Date()) : []),
        { actor: { kind: 'delivery_engine' } },
      ),
    );

    const one = await replayOne(key, delivery.id);
    expect(one.status).toBe(409);
    expect(one.body.detail).toMatch(/disabled/);
    const range = await replayRange(key, endpointId, {
      from: new Date(Date.now() - HOUR_MS).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(range.status).toBe(409);

    await http(stack.api.baseUrl, 'POST', `/v1/webhooks/${endpointId}/recover`, { key, json: {} });
    expect((await replayOne(key, delivery.id)).status).toBe(200);
    await deliveryOf(key, envelope.id, (d) => d.status === 'succeeded' && d.attempts === 2);
    expect(requestsTo('/disabled')).toHaveLength(2);
  });

  // Last: it folds the log of every test above, replays and a test event among them.
  it('folds the same deliveries again from the log: a rebuild after replays and tests equals live', async () => {
    const rows = () =>
      stack.api.dataSource.query(
        `SELECT id, event_type, status, attempts, run_attempts, last_attempt_at, next_attempt_at,
                created_at, completed_at, version FROM deliveries ORDER BY id`,
      );
    const live = await rows();
    expect(live.some((row: { event_type: string }) => row.event_type === 'webhook.test')).toBe(
      true,
    );

    await stack.api.dataSource.query('DELETE FROM deliveries');
    await refoldDeliveryProjections(stack.api.dataSource);

    expect(await rows()).toEqual(live);
  });
});
