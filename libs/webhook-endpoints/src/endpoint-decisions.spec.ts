import { endpointState } from '@svc/testing/builders';
import {
  decideDegrade,
  decideDisable,
  decideReactivate,
  decideRegister,
  decideRemove,
  decideRotateSecret,
  decideUpdate,
  MAX_SECRET_OVERLAP_MS,
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
          signature_schemes: ['hmac-sha256'],
          ordering: 'unordered',
          created_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('given signature schemes, when registered, then the event records them as given', () => {
    const [event] = decideRegister(
      { ...command, signatureSchemes: ['ed25519', 'hmac-sha256'] },
      null,
      now,
    );
    expect(event.data.signature_schemes).toEqual(['ed25519', 'hmac-sha256']);
  });

  it('given FIFO ordering, when registered, then the event records it', () => {
    const [event] = decideRegister({ ...command, ordering: 'fifo' }, null, now);
    expect(event.data.ordering).toBe('fifo');
  });

  it('given a filter, when registered, then the event records it; given none or null, nothing', () => {
    const filter = { data: { severity: { $in: ['high', 'critical'] } } };
    expect(decideRegister({ ...command, filter }, null, now)[0].data.filter).toEqual(filter);
    expect(decideRegister(command, null, now)[0].data).not.toHaveProperty('filter');
    expect(decideRegister({ ...command, filter: null }, null, now)[0].data).not.toHaveProperty(
      'filter',
    );
  });

  it('given auth, a retry schedule and a timeout, when registered, then the event records them; given none, nothing', () => {
    const auth = { type: 'basic' as const, username: 'svc', secret_ciphertext: 'sealed-pw' };
    const data = decideRegister(
      { ...command, auth, retrySchedule: ['10s', '1m'], timeoutSeconds: 4 },
      null,
      now,
    )[0].data;
    expect(data).toMatchObject({ auth, retry_schedule: ['10s', '1m'], timeout_seconds: 4 });
    const plain = decideRegister(
      { ...command, auth: null, retrySchedule: null, timeoutSeconds: null },
      null,
      now,
    )[0].data;
    for (const field of ['auth', 'retry_schedule', 'timeout_seconds']) {
      expect(plain).not.toHaveProperty(field);
    }
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

  it('given an endpoint, when its signature schemes change, then only they are in the event', () => {
    const [event] = decideUpdate({ signatureSchemes: ['ed25519'] }, endpoint(), now);

    expect(event.data.changes).toEqual({ signature_schemes: ['ed25519'] });
  });

  it('given an endpoint, when its ordering changes, then only it is in the event', () => {
    const [event] = decideUpdate({ ordering: 'fifo' }, endpoint(), now);

    expect(event.data.changes).toEqual({ ordering: 'fifo' });
  });

  it('given an endpoint, when its filter changes or is removed, then only it is in the event', () => {
    const filter = { type: { $startsWith: 'alert.' } };
    expect(decideUpdate({ filter }, endpoint(), now)[0].data.changes).toEqual({ filter });
    expect(decideUpdate({ filter: null }, endpoint(), now)[0].data.changes).toEqual({
      filter: null,
    });
    expect(
      decideUpdate({ url: 'https://b.example/' }, endpoint(), now)[0].data.changes,
    ).not.toHaveProperty('filter');
  });

  it('given an endpoint, when auth, schedule or timeout change or are removed, then only they are in the event', () => {
    expect(
      decideUpdate({ retrySchedule: ['5s'], timeoutSeconds: 2 }, endpoint(), now)[0].data.changes,
    ).toEqual({ retry_schedule: ['5s'], timeout_seconds: 2 });
    expect(
      decideUpdate({ auth: null, retrySchedule: null, timeoutSeconds: null }, endpoint(), now)[0]
        .data.changes,
    ).toEqual({ auth: null, retry_schedule: null, timeout_seconds: null });
    expect(decideUpdate({ url: 'https://b.example/' }, endpoint(), now)[0].data.changes).toEqual({
      url: 'https://b.example/',
    });
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

describe('decideDisable (ADR 0027)', () => {
  it.each(['active', 'degraded'] as const)(
    'given a %s endpoint, when a receiver answers 410 Gone, then it is disabled, naming the delivery',
    (status) => {
      expect(decideDisable({ deliveryId: 'del_1' }, endpoint({ status }), now)).toEqual([
        {
          type: 'webhook_endpoint.disabled',
          data: {
            endpoint_id: 'wh_1',
            reason: 'gone',
            delivery_id: 'del_1',
            status_code: 410,
            at: '2026-01-01T00:00:00.000Z',
          },
        },
      ]);
    },
  );

  it('given a disabled endpoint, when another 410 comes, then nothing happens', () => {
    expect(decideDisable({ deliveryId: 'del_2' }, endpoint({ status: 'disabled' }), now)).toEqual(
      [],
    );
  });

  it('given a disabled endpoint, when a delivery is abandoned, then it stays disabled', () => {
    expect(decideDegrade({ deliveryId: 'del_2' }, endpoint({ status: 'disabled' }), now)).toEqual(
      [],
    );
  });

  it('given a disabled endpoint, when a delivery already on its way succeeds, then it stays disabled', () => {
    expect(
      decideReactivate(
        { reason: 'delivery_succeeded', deliveryId: 'del_3' },
        endpoint({ status: 'disabled' }),
        now,
      ),
    ).toEqual([]);
  });

  it('given a disabled endpoint, when recovered, then it is active again', () => {
    expect(
      decideReactivate({ reason: 'recovered' }, endpoint({ status: 'disabled' }), now),
    ).toEqual([expect.objectContaining({ type: 'webhook_endpoint.reactivated' })]);
  });
});

describe('decideRotateSecret (ADR 0026)', () => {
  const DAY_MS = 24 * 3600_000;

  it('given an endpoint with one secret, when rotated with an overlap, then the old secret signs beside the new one until the overlap ends', () => {
    expect(
      decideRotateSecret({ secretCiphertext: 'sealed-2', overlapMs: DAY_MS }, endpoint(), now),
    ).toEqual([
      {
        type: 'webhook_endpoint.secret_rotated',
        data: {
          endpoint_id: 'wh_1',
          secret_ciphertext: 'sealed-2',
          previous_secret_ciphertext: 'sealed-1',
          previous_secret_expires_at: '2026-01-02T00:00:00.000Z',
          rotated_at: '2026-01-01T00:00:00.000Z',
        },
      },
    ]);
  });

  it('given an endpoint, when rotated without overlap, then the old secret stops at once', () => {
    const [event] = decideRotateSecret(
      { secretCiphertext: 'sealed-2', overlapMs: 0 },
      endpoint(),
      now,
    );

    expect(event.data).toMatchObject({
      secret_ciphertext: 'sealed-2',
      previous_secret_ciphertext: null,
      previous_secret_expires_at: null,
    });
  });

  it('given an endpoint still overlapping, when rotated again, then the oldest secret is dropped: at most two sign', () => {
    const overlapping = endpoint({
      secretCiphertext: 'sealed-2',
      previousSecretCiphertext: 'sealed-1',
      previousSecretExpiresAt: new Date('2026-01-01T12:00:00.000Z'),
    });

    const [event] = decideRotateSecret(
      { secretCiphertext: 'sealed-3', overlapMs: DAY_MS },
      overlapping,
      now,
    );

    expect(event.data).toMatchObject({
      secret_ciphertext: 'sealed-3',
      previous_secret_ciphertext: 'sealed-2',
      previous_secret_expires_at: '2026-01-02T00:00:00.000Z',
    });
    expect(JSON.stringify(event)).not.toContain('sealed-1');
  });

  it('given an endpoint still overlapping, when rotated without overlap, then only the new secret is left', () => {
    const overlapping = endpoint({
      secretCiphertext: 'sealed-2',
      previousSecretCiphertext: 'sealed-1',
      previousSecretExpiresAt: new Date('2026-01-01T12:00:00.000Z'),
    });

    const [event] = decideRotateSecret(
      { secretCiphertext: 'sealed-3', overlapMs: 0 },
      overlapping,
      now,
    );

    expect(event.data).toMatchObject({
      previous_secret_ciphertext: null,
      previous_secret_expires_at: null,
    });
  });

  it('given an endpoint, when rotated with the longest overlap allowed, then it is accepted', () => {
    const [event] = decideRotateSecret(
      { secretCiphertext: 'sealed-2', overlapMs: MAX_SECRET_OVERLAP_MS },
      endpoint(),
      now,
    );

    expect(MAX_SECRET_OVERLAP_MS).toBe(7 * DAY_MS);
    expect(event.data.previous_secret_expires_at).toBe('2026-01-08T00:00:00.000Z');
  });

  it.each([-1, MAX_SECRET_OVERLAP_MS + 1])(
    'given an endpoint, when rotated with an overlap of %s ms, then the rotation is refused',
    (overlapMs) => {
      expect(() =>
        decideRotateSecret({ secretCiphertext: 'sealed-2', overlapMs }, endpoint(), now),
      ).toThrow(RangeError);
    },
  );
});
