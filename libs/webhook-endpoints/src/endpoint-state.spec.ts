import { foldEndpoint, registeredEvent } from '@svc/testing/builders';
import { ENDPOINT_EVENT_TYPES, EndpointEvent } from './endpoint-events';
import { applyEndpointEvent } from './endpoint-state';

const registered = registeredEvent();
const fold = foldEndpoint;

describe('applyEndpointEvent', () => {
  it('starts an endpoint active at version 1', () => {
    expect(fold([registered])).toEqual({
      id: 'wh_1',
      tenantId: 'ten_1',
      url: 'https://a.example/in',
      events: ['alert.created'],
      secretCiphertext: 'sealed-1',
      status: 'active',
      environment: 'live',
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
      updatedAt: new Date('2026-01-01T00:00:00.000Z'),
      version: 1,
    });
  });

  it('keeps the environment the registration names; a registration without one is live', () => {
    const test = applyEndpointEvent(
      null,
      { type: ENDPOINT_EVENT_TYPES.registered, data: { ...registered.data, environment: 'test' } },
      1,
    );
    expect(test).toMatchObject({ environment: 'test' });
    const updated = applyEndpointEvent(
      test,
      {
        type: ENDPOINT_EVENT_TYPES.updated,
        data: {
          endpoint_id: 'wh_1',
          changes: { url: 'https://b.example/' },
          updated_at: '2026-01-02T00:00:00.000Z',
        },
      },
      2,
    );
    expect(updated).toMatchObject({ environment: 'test', url: 'https://b.example/' });
    expect(fold([registered])).toMatchObject({ environment: 'live' });
  });

  it('applies only the fields an update changes', () => {
    const state = fold([
      registered,
      {
        type: ENDPOINT_EVENT_TYPES.updated,
        data: {
          endpoint_id: 'wh_1',
          changes: { events: ['incident.*'] },
          updated_at: '2026-01-02T00:00:00.000Z',
        },
      },
      {
        type: ENDPOINT_EVENT_TYPES.updated,
        data: {
          endpoint_id: 'wh_1',
          changes: { secret_ciphertext: 'sealed-2' },
          updated_at: '2026-01-03T00:00:00.000Z',
        },
      },
    ]);
    expect(state).toMatchObject({
      url: 'https://a.example/in',
      events: ['incident.*'],
      secretCiphertext: 'sealed-2',
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
      updatedAt: new Date('2026-01-03T00:00:00.000Z'),
      version: 3,
    });
  });

  it('degrades on an abandoned delivery and reactivates', () => {
    const degraded = fold([
      registered,
      {
        type: ENDPOINT_EVENT_TYPES.degraded,
        data: {
          endpoint_id: 'wh_1',
          reason: 'delivery_abandoned',
          delivery_id: 'del_1',
          at: '2026-01-02T00:00:00.000Z',
        },
      },
    ]);
    expect(degraded).toMatchObject({ status: 'degraded', version: 2, url: 'https://a.example/in' });
    const active = applyEndpointEvent(
      degraded,
      {
        type: ENDPOINT_EVENT_TYPES.reactivated,
        data: {
          endpoint_id: 'wh_1',
          reason: 'recovered',
          delivery_id: null,
          at: '2026-01-03T00:00:00.000Z',
        },
      },
      3,
    );
    expect(active).toMatchObject({
      status: 'active',
      version: 3,
      updatedAt: new Date('2026-01-03T00:00:00.000Z'),
    });
  });

  it('ends at null once deleted, and stays there', () => {
    const deleted: EndpointEvent = {
      type: ENDPOINT_EVENT_TYPES.deleted,
      data: { endpoint_id: 'wh_1', deleted_at: '2026-01-02T00:00:00.000Z' },
    };
    const update: EndpointEvent = {
      type: ENDPOINT_EVENT_TYPES.updated,
      data: {
        endpoint_id: 'wh_1',
        changes: { url: 'https://b.example' },
        updated_at: '2026-01-03T00:00:00.000Z',
      },
    };
    expect(fold([registered, deleted])).toBeNull();
    expect(fold([registered, deleted, update])).toBeNull();
  });
});
