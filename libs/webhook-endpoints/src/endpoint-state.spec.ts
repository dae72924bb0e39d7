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
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      status: 'active',
      environment: 'live',
      rateLimitPerSecond: null,
      signatureSchemes: ['hmac-sha256'],
      ordering: 'unordered',
      filter: null,
      auth: null,
      retrySchedule: null,
      timeoutSeconds: null,
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

describe('applyEndpointEvent: disabled (ADR 0027)', () => {
  it('disables on a 410 and only a recovery makes the endpoint active again', () => {
    const disabled = fold([
      registered,
      {
        type: ENDPOINT_EVENT_TYPES.disabled,
        data: {
          endpoint_id: 'wh_1',
          reason: 'gone',
          delivery_id: 'del_1',
          status_code: 410,
          at: '2026-01-03T00:00:00.000Z',
        },
      },
    ]);
    expect(disabled).toMatchObject({
      status: 'disabled',
      version: 2,
      updatedAt: new Date('2026-01-03T00:00:00.000Z'),
    });
  });
});

describe('applyEndpointEvent: rate limit (ADR 0028)', () => {
  it('keeps the registered limit until an update changes or removes it', () => {
    const limited = applyEndpointEvent(
      null,
      {
        type: ENDPOINT_EVENT_TYPES.registered,
        data: { ...registered.data, rate_limit_per_second: 5 },
      },
      1,
    );
    expect(limited).toMatchObject({ rateLimitPerSecond: 5 });
    const update = (changes: { rate_limit_per_second?: number | null; url?: string }) =>
      ({
        type: ENDPOINT_EVENT_TYPES.updated,
        data: { endpoint_id: 'wh_1', changes, updated_at: '2026-01-02T00:00:00.000Z' },
      }) as EndpointEvent;
    expect(applyEndpointEvent(limited, update({ url: 'https://b.example/' }), 2)).toMatchObject({
      rateLimitPerSecond: 5,
    });
    expect(applyEndpointEvent(limited, update({ rate_limit_per_second: 9 }), 2)).toMatchObject({
      rateLimitPerSecond: 9,
    });
    expect(applyEndpointEvent(limited, update({ rate_limit_per_second: null }), 2)).toMatchObject({
      rateLimitPerSecond: null,
    });
  });
});

describe('applyEndpointEvent: signature schemes (ADR 0044)', () => {
  const update = (changes: { signature_schemes?: ('hmac-sha256' | 'ed25519')[]; url?: string }) =>
    ({
      type: ENDPOINT_EVENT_TYPES.updated,
      data: { endpoint_id: 'wh_1', changes, updated_at: '2026-01-02T00:00:00.000Z' },
    }) as EndpointEvent;

  it('folds a registration recorded before the field to HMAC only', () => {
    expect(registered.data).not.toHaveProperty('signature_schemes');
    expect(fold([registered])).toMatchObject({ signatureSchemes: ['hmac-sha256'] });
  });

  it('keeps the registered schemes until an update names others', () => {
    const both = fold([registeredEvent({ signature_schemes: ['ed25519', 'hmac-sha256'] })]);
    expect(both).toMatchObject({ signatureSchemes: ['ed25519', 'hmac-sha256'] });
    expect(applyEndpointEvent(both, update({ url: 'https://b.example/' }), 2)).toMatchObject({
      signatureSchemes: ['ed25519', 'hmac-sha256'],
    });
    expect(applyEndpointEvent(both, update({ signature_schemes: ['ed25519'] }), 2)).toMatchObject({
      signatureSchemes: ['ed25519'],
    });
  });
});

describe('applyEndpointEvent: ordering (ADR 0045)', () => {
  const update = (changes: { ordering?: 'unordered' | 'fifo'; url?: string }) =>
    ({
      type: ENDPOINT_EVENT_TYPES.updated,
      data: { endpoint_id: 'wh_1', changes, updated_at: '2026-01-02T00:00:00.000Z' },
    }) as EndpointEvent;

  it('folds a registration recorded before the field to unordered', () => {
    expect(registered.data).not.toHaveProperty('ordering');
    expect(fold([registered])).toMatchObject({ ordering: 'unordered' });
  });

  it('keeps the registered ordering until an update names another', () => {
    const fifo = fold([registeredEvent({ ordering: 'fifo' })]);
    expect(fifo).toMatchObject({ ordering: 'fifo' });
    expect(applyEndpointEvent(fifo, update({ url: 'https://b.example/' }), 2)).toMatchObject({
      ordering: 'fifo',
    });
    expect(applyEndpointEvent(fifo, update({ ordering: 'unordered' }), 2)).toMatchObject({
      ordering: 'unordered',
    });
  });
});

describe('applyEndpointEvent: payload filter (ADR 0046)', () => {
  const severe = { data: { severity: { $in: ['high', 'critical'] } } };
  const update = (changes: { filter?: Record<string, unknown> | null; url?: string }) =>
    ({
      type: ENDPOINT_EVENT_TYPES.updated,
      data: { endpoint_id: 'wh_1', changes, updated_at: '2026-01-02T00:00:00.000Z' },
    }) as EndpointEvent;

  it('folds a registration without a filter to none', () => {
    expect(registered.data).not.toHaveProperty('filter');
    expect(fold([registered])).toMatchObject({ filter: null });
  });

  it('keeps the registered filter until an update names another, and null removes it', () => {
    const filtered = fold([registeredEvent({ filter: severe })]);
    expect(filtered).toMatchObject({ filter: severe });
    expect(applyEndpointEvent(filtered, update({ url: 'https://b.example/' }), 2)).toMatchObject({
      filter: severe,
    });
    expect(
      applyEndpointEvent(filtered, update({ filter: { type: 'alert.created' } }), 2),
    ).toMatchObject({
      filter: { type: 'alert.created' },
    });
    expect(applyEndpointEvent(filtered, update({ filter: null }), 2)).toMatchObject({
      filter: null,
    });
  });
});

describe('applyEndpointEvent: receiver auth and delivery policy (ADR 0048)', () => {
  const sealedBasic = { type: 'basic' as const, username: 'svc', secret_ciphertext: 'sealed-pw' };
  const update = (changes: Record<string, unknown>) =>
    ({
      type: ENDPOINT_EVENT_TYPES.updated,
      data: { endpoint_id: 'wh_1', changes, updated_at: '2026-01-02T00:00:00.000Z' },
    }) as EndpointEvent;

  it('folds a registration without them to none: the deployment decides', () => {
    expect(fold([registered])).toMatchObject({
      auth: null,
      retrySchedule: null,
      timeoutSeconds: null,
    });
  });

  it('keeps what the registration gave until an update names it, and null removes each', () => {
    const given = fold([
      registeredEvent({ auth: sealedBasic, retry_schedule: ['10s', '1m'], timeout_seconds: 3 }),
    ]);
    expect(given).toMatchObject({
      auth: sealedBasic,
      retrySchedule: ['10s', '1m'],
      timeoutSeconds: 3,
    });
    expect(applyEndpointEvent(given, update({ url: 'https://b.example/' }), 2)).toMatchObject({
      auth: sealedBasic,
      retrySchedule: ['10s', '1m'],
      timeoutSeconds: 3,
    });
    expect(
      applyEndpointEvent(given, update({ retry_schedule: ['1h'], timeout_seconds: 10 }), 2),
    ).toMatchObject({ auth: sealedBasic, retrySchedule: ['1h'], timeoutSeconds: 10 });
    expect(
      applyEndpointEvent(
        given,
        update({ auth: null, retry_schedule: null, timeout_seconds: null }),
        2,
      ),
    ).toMatchObject({ auth: null, retrySchedule: null, timeoutSeconds: null });
  });
});

describe('applyEndpointEvent: secret rotation (ADR 0026)', () => {
  const rotated = (
    data: Partial<Extract<EndpointEvent, { type: 'webhook_endpoint.secret_rotated' }>['data']> = {},
  ): EndpointEvent => ({
    type: ENDPOINT_EVENT_TYPES.secretRotated,
    data: {
      endpoint_id: 'wh_1',
      secret_ciphertext: 'sealed-2',
      previous_secret_ciphertext: 'sealed-1',
      previous_secret_expires_at: '2026-01-03T00:00:00.000Z',
      rotated_at: '2026-01-02T00:00:00.000Z',
      ...data,
    },
  });
  const updated = (changes: { secret_ciphertext?: string; url?: string }): EndpointEvent => ({
    type: ENDPOINT_EVENT_TYPES.updated,
    data: { endpoint_id: 'wh_1', changes, updated_at: '2026-01-02T06:00:00.000Z' },
  });

  it('given an endpoint, when its secret is rotated, then the old one is kept beside the new one with its expiry', () => {
    expect(fold([registered, rotated()])).toMatchObject({
      secretCiphertext: 'sealed-2',
      previousSecretCiphertext: 'sealed-1',
      previousSecretExpiresAt: new Date('2026-01-03T00:00:00.000Z'),
      updatedAt: new Date('2026-01-02T00:00:00.000Z'),
      version: 2,
    });
  });

  it('given an overlap, when rotated again without overlap, then no previous secret is left', () => {
    expect(
      fold([
        registered,
        rotated(),
        rotated({
          secret_ciphertext: 'sealed-3',
          previous_secret_ciphertext: null,
          previous_secret_expires_at: null,
        }),
      ]),
    ).toMatchObject({
      secretCiphertext: 'sealed-3',
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      version: 3,
    });
  });

  it('given an overlap, when a PATCH sets the secret, then it replaces both at once', () => {
    expect(fold([registered, rotated(), updated({ secret_ciphertext: 'sealed-9' })])).toMatchObject(
      {
        secretCiphertext: 'sealed-9',
        previousSecretCiphertext: null,
        previousSecretExpiresAt: null,
        version: 3,
      },
    );
  });

  it('given an overlap, when a PATCH changes something else, then the overlap goes on', () => {
    expect(fold([registered, rotated(), updated({ url: 'https://b.example/' })])).toMatchObject({
      url: 'https://b.example/',
      secretCiphertext: 'sealed-2',
      previousSecretCiphertext: 'sealed-1',
      previousSecretExpiresAt: new Date('2026-01-03T00:00:00.000Z'),
    });
  });

  it('given no endpoint, when a rotation comes, then there is still none', () => {
    expect(applyEndpointEvent(null, rotated(), 1)).toBeNull();
  });
});
