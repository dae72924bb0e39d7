import { EVENT_CATALOGUE, validateEnvelope } from '@svc/contracts';
import { attemptedEvent, endpointState, registeredEvent, T0 } from '@svc/testing/builders';
import {
  decideDegrade,
  decideDisable,
  decideReactivate,
  ENDPOINT_EVENT_TYPES,
} from '@svc/webhook-endpoints';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import {
  EndpointAtTheTime,
  endpointAsOf,
  operationalEventId,
  operationalEventOf,
  OutboxEntry,
  PositionedEndpointEvent,
  raisesOperationalEvent,
} from './operational-event';

const RECORDED = new Date('2026-01-01T00:00:01.234Z');
const endpoint: EndpointAtTheTime = {
  id: 'wh_1',
  tenantId: 'ten_1',
  url: 'https://a.example/in',
  environment: 'live',
};
const inTheLog = (event: Pick<OutboxEntry, 'type' | 'data'>, streamId = 'wh_1'): OutboxEntry =>
  ({ ...event, streamId, version: 7, position: '1042', recordedAt: RECORDED }) as OutboxEntry;

const abandonedAttempt = (overrides: Parameters<typeof attemptedEvent>[0] = {}) =>
  inTheLog(
    attemptedEvent({ attempt: 5, next_attempt_at: null, abandoned: true, ...overrides }),
    'del_1',
  );

const ajv = new Ajv2020({ strict: true });
addFormats(ajv);
/** Whether the event's data is what the catalogue (GET /v1/event-types) says of its type. */
const matchesCatalogue = (type: string, data: unknown) =>
  ajv.compile(EVENT_CATALOGUE.find((entry) => entry.type === type)!.dataSchema)(data);

describe('operationalEventOf (ADR 0030)', () => {
  it('given an endpoint degraded by an abandoned delivery, when relayed, then webhook.endpoint.degraded tells which delivery', () => {
    const [degraded] = decideDegrade({ deliveryId: 'del_1' }, endpointState(), T0);
    const event = operationalEventOf(inTheLog(degraded), endpoint);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
      type: 'webhook.endpoint.degraded',
      created_at: '2026-01-01T00:00:01.234Z',
      tenant_id: 'ten_1',
      data: {
        endpoint_id: 'wh_1',
        url: 'https://a.example/in',
        environment: 'live',
        reason: 'delivery_abandoned',
        delivery_id: 'del_1',
        at: T0.toISOString(),
      },
    });
    expect(validateEnvelope(event)).toMatchObject({ ok: true });
    expect(matchesCatalogue(event!.type, event!.data)).toBe(true);
  });

  it('given an endpoint recovered, when relayed, then webhook.endpoint.reactivated has no delivery', () => {
    const [reactivated] = decideReactivate(
      { reason: 'recovered' },
      endpointState({ status: 'degraded' }),
      T0,
    );
    const event = operationalEventOf(inTheLog(reactivated), endpoint)!;
    expect(event.type).toBe('webhook.endpoint.reactivated');
    expect(event.data).toMatchObject({ reason: 'recovered', delivery_id: null });
    expect(matchesCatalogue(event.type, event.data)).toBe(true);
  });

  it('given an endpoint reactivated by a success, when relayed, then the delivery that succeeded is named', () => {
    const [reactivated] = decideReactivate(
      { reason: 'delivery_succeeded', deliveryId: 'del_9' },
      endpointState({ status: 'degraded' }),
      T0,
    );
    const event = operationalEventOf(inTheLog(reactivated), endpoint)!;
    expect(event.data).toMatchObject({ reason: 'delivery_succeeded', delivery_id: 'del_9' });
    expect(matchesCatalogue(event.type, event.data)).toBe(true);
  });

  it('given an endpoint disabled by a 410, when relayed, then webhook.endpoint.disabled carries the status', () => {
    const [disabled] = decideDisable({ deliveryId: 'del_1' }, endpointState(), T0);
    const event = operationalEventOf(inTheLog(disabled), endpoint)!;
    expect(event.type).toBe('webhook.endpoint.disabled');
    expect(event.data).toMatchObject({ reason: 'gone', delivery_id: 'del_1', status_code: 410 });
    expect(matchesCatalogue(event.type, event.data)).toBe(true);
  });

  it('given a delivery abandoned after its last attempt, when relayed, then webhook.delivery.abandoned names its event and last failure', () => {
    const event = operationalEventOf(abandonedAttempt(), endpoint)!;
    expect(event).toMatchObject({
      type: 'webhook.delivery.abandoned',
      tenant_id: 'ten_1',
      data: {
        endpoint_id: 'wh_1',
        url: 'https://a.example/in',
        environment: 'live',
        reason: 'attempts_exhausted',
        delivery_id: 'del_1',
        event_id: 'evt_1',
        event_type: 'alert.created',
        attempts: 5,
        status_code: 500,
        error_kind: 'http_status',
        at: T0.toISOString(),
      },
    });
    expect(matchesCatalogue(event.type, event.data)).toBe(true);
  });

  it('given a delivery abandoned on a 410, when relayed, then its reason is gone', () => {
    const event = operationalEventOf(abandonedAttempt({ attempt: 1, status_code: 410 }), endpoint)!;
    expect(event.data).toMatchObject({ reason: 'gone', attempts: 1, status_code: 410 });
  });

  it('given an attempt that did not abandon its delivery, when relayed, then nothing is raised', () => {
    expect(operationalEventOf(inTheLog(attemptedEvent(), 'del_1'), endpoint)).toBeNull();
  });

  it('given a sandbox endpoint, when relayed, then the event says test: only test endpoints hear of it', () => {
    const [degraded] = decideDegrade({ deliveryId: 'del_1' }, endpointState(), T0);
    const event = operationalEventOf(inTheLog(degraded), { ...endpoint, environment: 'test' })!;
    expect(event.data.environment).toBe('test');
  });

  it('never carries a secret, though the endpoint state holds its ciphertext', () => {
    const [degraded] = decideDegrade({ deliveryId: 'del_1' }, endpointState(), T0);
    expect(JSON.stringify(operationalEventOf(inTheLog(degraded), endpoint))).not.toMatch(
      /secret|sealed/,
    );
  });
});

describe('the loop guard', () => {
  it('given an abandoned delivery of an operational event, when relayed, then nothing is raised', () => {
    for (const type of [
      'webhook.delivery.abandoned',
      'webhook.endpoint.degraded',
      'webhook.test',
    ]) {
      const entry = abandonedAttempt({ event_type: type });
      expect(raisesOperationalEvent(entry)).toBe(false);
      expect(operationalEventOf(entry, endpoint)).toBeNull();
    }
  });

  it('given an abandoned delivery of a platform event, when relayed, then it is told', () => {
    expect(raisesOperationalEvent(abandonedAttempt({ event_type: 'incident.created' }))).toBe(true);
  });

  it('given a status change, whatever degraded the endpoint, when relayed, then it is told once', () => {
    const [degraded] = decideDegrade({ deliveryId: 'del_1' }, endpointState(), T0);
    expect(raisesOperationalEvent(inTheLog(degraded))).toBe(true);
  });
});

describe('operationalEventId', () => {
  it('is the same for every relay that publishes one log event, and differs between log events', () => {
    const entry = abandonedAttempt();
    expect(operationalEventId(entry)).toBe(operationalEventId({ ...entry }));
    expect(operationalEventId(entry)).not.toBe(operationalEventId({ ...entry, version: 8 }));
    expect(operationalEventId(entry)).not.toBe(operationalEventId({ ...entry, streamId: 'del_2' }));
    // Its time is the event's, so ids sort like the log.
    expect(operationalEventId(entry).slice(4, 14)).toBe(
      operationalEventId({ ...entry, version: 9 }).slice(4, 14),
    );
  });

  it('makes the same envelope, byte for byte, when published again', () => {
    const entry = abandonedAttempt();
    expect(JSON.stringify(operationalEventOf(entry, endpoint))).toBe(
      JSON.stringify(operationalEventOf({ ...entry }, { ...endpoint })),
    );
  });
});

describe('endpointAsOf', () => {
  const history = (...events: Omit<PositionedEndpointEvent, 'version'>[]) =>
    events.map((event, index) => ({ ...event, version: index + 1 }) as PositionedEndpointEvent);
  const registered = { ...registeredEvent({ environment: 'test' }), position: '10' };
  const moved = {
    type: ENDPOINT_EVENT_TYPES.updated,
    data: {
      endpoint_id: 'wh_1',
      changes: { url: 'https://b.example/in' },
      updated_at: '2026-01-02T00:00:00.000Z',
    },
    position: '20',
  };
  const deleted = {
    type: ENDPOINT_EVENT_TYPES.deleted,
    data: { endpoint_id: 'wh_1', deleted_at: '2026-01-03T00:00:00.000Z' },
    position: '30',
  };

  it('given a later change of URL, when read as of an earlier position, then the URL of then', () => {
    expect(endpointAsOf(history(registered, moved), '15')).toEqual({
      id: 'wh_1',
      tenantId: 'ten_1',
      url: 'https://a.example/in',
      environment: 'test',
    });
    expect(endpointAsOf(history(registered, moved), '20')?.url).toBe('https://b.example/in');
  });

  it('given a deleted endpoint, when read after its deletion, then as it was before', () => {
    expect(endpointAsOf(history(registered, moved, deleted), '35')?.url).toBe(
      'https://b.example/in',
    );
  });

  it('given no registration up to the position, then nothing', () => {
    expect(endpointAsOf(history(registered), '9')).toBeNull();
    expect(endpointAsOf([], '9')).toBeNull();
  });
});
