import { endpointState } from '@svc/testing/builders';
import {
  decideDegrade,
  decideReactivate,
  decideRegister,
  decideRemove,
  decideUpdate,
  RegisterEndpoint,
} from './endpoint-decisions';

const now = new Date('2026-01-01T00:00:00.000Z');

const endpoint = endpointState;

describe('decideRegister', () => {
  const command: RegisterEndpoint = {
    endpointId: 'wh_1',
    tenantId: 'ten_1',
    url: 'HTTPS://A.Example',
    events: ['alert.created', 'incident.*'],
    secretCiphertext: 'sealed-1',
    environment: 'test',
  };

  it('given no endpoint, when registered, then it starts active at its canonical URL', () => {
    expect(decideRegister(command, null, now)).toEqual([
      {
        type: 'webhook_endpoint.registered',
        data: {
          endpoint_id: 'wh_1',
          tenant_id: 'ten_1',
          url: 'https://a.example/',
          events: ['alert.created', 'incident.*'],
          secret_ciphertext: 'sealed-1',
          status: 'active',
          environment: 'test',
          created_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('given an endpoint with that id, when registered again, then nothing happens', () => {
    expect(decideRegister(command, endpoint(), now)).toEqual([]);
  });
});

describe('decideUpdate', () => {
  it('given an endpoint, when some fields change, then the event names only those', () => {
    expect(
      decideUpdate({ url: 'https://B.example/x', secretCiphertext: 'sealed-2' }, endpoint(), now),
    ).toEqual([
      {
        type: 'webhook_endpoint.updated',
        data: {
          endpoint_id: 'wh_1',
          changes: { url: 'https://b.example/x', secret_ciphertext: 'sealed-2' },
          updated_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('given an endpoint, when its subscriptions change, then they are copied into the event', () => {
    const events = ['alert.*'] as const;
    const [event] = decideUpdate({ events }, endpoint(), now);

    expect(event.data.changes).toEqual({ events: ['alert.*'] });
    expect(event.data.changes.events).not.toBe(events);
  });
});

describe('decideRemove', () => {
  it('given an endpoint, when removed, then it is deleted', () => {
    expect(decideRemove({}, endpoint(), now)).toEqual([
      {
        type: 'webhook_endpoint.deleted',
        data: { endpoint_id: 'wh_1', deleted_at: '2026-01-01T00:00:00.000Z' },
      },
    ]);
  });
});

describe('decideDegrade', () => {
  it('given an active endpoint, when a delivery to it is abandoned, then it is degraded', () => {
    expect(decideDegrade({ deliveryId: 'del_1' }, endpoint(), now)).toEqual([
      {
        type: 'webhook_endpoint.degraded',
        data: {
          endpoint_id: 'wh_1',
          reason: 'delivery_abandoned',
          delivery_id: 'del_1',
          at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('given a degraded endpoint, when another delivery is abandoned, then nothing happens', () => {
    expect(decideDegrade({ deliveryId: 'del_2' }, endpoint({ status: 'degraded' }), now)).toEqual(
      [],
    );
  });
});

describe('decideReactivate', () => {
  it('given a degraded endpoint, when a delivery succeeds, then it is active again, naming the delivery', () => {
    expect(
      decideReactivate(
        { reason: 'delivery_succeeded', deliveryId: 'del_1' },
        endpoint({ status: 'degraded' }),
        now,
      ),
    ).toEqual([
      {
        type: 'webhook_endpoint.reactivated',
        data: {
          endpoint_id: 'wh_1',
          reason: 'delivery_succeeded',
          delivery_id: 'del_1',
          at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('given a degraded endpoint, when recovered, then it is active again, naming no delivery', () => {
    const [event] = decideReactivate(
      { reason: 'recovered' },
      endpoint({ status: 'degraded' }),
      now,
    );

    expect(event.data).toMatchObject({ reason: 'recovered', delivery_id: null });
  });

  it('given an active endpoint, when recovered or a delivery succeeds, then nothing happens', () => {
    expect(decideReactivate({ reason: 'recovered' }, endpoint(), now)).toEqual([]);
    expect(
      decideReactivate({ reason: 'delivery_succeeded', deliveryId: 'del_1' }, endpoint(), now),
    ).toEqual([]);
  });
});
