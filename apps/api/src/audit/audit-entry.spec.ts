import { AUDIT_TRAIL_INDEXED_TYPES } from '@svc/database';
import {
  actorOf,
  AUDIT_ACTIONS,
  AUDIT_EVENT_TYPES,
  AuditEventRow,
  auditEntryOf,
  changedFieldsOf,
  isAuditAction,
} from './audit-entry';
import { auditStatement, auditTypesLiteral } from './audit-query';

const recordedAt = new Date('2026-11-27T10:00:00.000Z');

const metadata = {
  tenant_id: 'ten_1',
  environment: 'live',
  actor: { kind: 'api_key', id: 'key_1', key_hint: 'svc_live_ab12…', extra: 'dropped' },
  request_id: 'req-1',
  client_address: '203.0.113.7',
};

function row(type: string, data: Record<string, unknown>, extra: Partial<AuditEventRow> = {}) {
  return {
    position: '42',
    stream_id: 'wh_1',
    type,
    data,
    metadata,
    recorded_at: recordedAt,
    ...extra,
  };
}

describe('auditEntryOf', () => {
  it('shows a registration with auth by its type only, never a part of it (ADR 0048)', () => {
    const entry = auditEntryOf(
      row('webhook_endpoint.registered', {
        endpoint_id: 'wh_1',
        url: 'https://hooks.example.com/a',
        events: ['alert.*'],
        auth: { type: 'basic', username: 'svc-user', secret_ciphertext: 'v1:sealed-password' },
      }),
    );
    expect(entry?.details).toEqual({
      url: 'https://hooks.example.com/a',
      events: ['alert.*'],
      auth_type: 'basic',
    });
    expect(JSON.stringify(entry)).not.toMatch(/sealed-password|svc-user/);
  });

  it('shows a registration by its url and events, never its secret', () => {
    const entry = auditEntryOf(
      row('webhook_endpoint.registered', {
        endpoint_id: 'wh_1',
        tenant_id: 'ten_1',
        url: 'https://hooks.example.com/a',
        events: ['alert.*'],
        secret_ciphertext: 'v1:sealed-secret',
        status: 'active',
        created_at: '2026-11-27T10:00:00.000Z',
      }),
    );
    expect(entry).toEqual({
      id: 'aud_42',
      action: 'endpoint.registered',
      target: { type: 'endpoint', id: 'wh_1' },
      actor: { kind: 'api_key', id: 'key_1', key_hint: 'svc_live_ab12…' },
      client_address: '203.0.113.7',
      request_id: 'req-1',
      occurred_at: '2026-11-27T10:00:00.000Z',
      details: { url: 'https://hooks.example.com/a', events: ['alert.*'], auth_type: null },
    });
    expect(JSON.stringify(entry)).not.toContain('sealed-secret');
  });

  it("shows an update's changed field names only, a new secret as `secret`", () => {
    const entry = auditEntryOf(
      row('webhook_endpoint.updated', {
        endpoint_id: 'wh_1',
        changes: { url: 'https://new.example.com', secret_ciphertext: 'v1:sealed-secret' },
        updated_at: '2026-11-27T10:00:00.000Z',
      }),
    );
    expect(entry?.details).toEqual({ changes: ['url', 'secret'] });
    expect(JSON.stringify(entry)).not.toMatch(/sealed-secret|new\.example/);
  });

  it('shows a rotation without either secret', () => {
    const entry = auditEntryOf(
      row('webhook_endpoint.secret_rotated', {
        endpoint_id: 'wh_1',
        secret_ciphertext: 'v1:new',
        previous_secret_ciphertext: 'v1:old',
        previous_secret_expires_at: '2026-11-28T10:00:00.000Z',
        rotated_at: '2026-11-27T10:00:00.000Z',
      }),
    );
    expect(entry).toMatchObject({
      action: 'endpoint.secret_rotated',
      details: { previous_secret_expires_at: '2026-11-28T10:00:00.000Z' },
    });
    expect(JSON.stringify(entry)).not.toMatch(/v1:/);
  });

  it('shows the requested actions with their endpoint as target', () => {
    const act = { stream_id: 'act_1' };
    const of = (type: string, data: Record<string, unknown>) =>
      auditEntryOf(row(type, { endpoint_id: 'wh_1', ...data }, act));
    expect(
      of('webhook_endpoint.test_requested', { delivery_id: 'del_1', event_id: 'e' }),
    ).toMatchObject({
      action: 'endpoint.test_sent',
      target: { type: 'endpoint', id: 'wh_1' },
      details: { delivery_id: 'del_1' },
    });
    expect(of('webhook_endpoint.replay_requested', { delivery_id: 'del_1' })?.details).toEqual({
      delivery_id: 'del_1',
    });
    expect(
      of('webhook_endpoint.replay_requested', { from: 'a', to: 'b', cursor: 'c' })?.details,
    ).toEqual({ from: 'a', to: 'b' });
    expect(
      of('webhook_endpoint.recovery_requested', { redrive_abandoned_since: null }),
    ).toMatchObject({ action: 'endpoint.recovered', details: { redrive_abandoned_since: null } });
  });

  it('shows a portal link minted by its link, never a token', () => {
    const entry = auditEntryOf(
      row(
        'portal_session.minted',
        {
          link_id: 'pl_1',
          read_only: true,
          return_url: null,
          expires_at: '2026-11-27T10:05:00.000Z',
          token: 'leaked',
        },
        { stream_id: 'act_2' },
      ),
    );
    expect(entry).toMatchObject({
      action: 'portal_session.minted',
      target: { type: 'portal_link', id: 'pl_1' },
      details: { read_only: true, return_url: null, expires_at: '2026-11-27T10:05:00.000Z' },
    });
    expect(JSON.stringify(entry)).not.toContain('leaked');
  });

  it('shows API keys created and revoked by the CLI operator', () => {
    const operator = {
      tenant_id: 'ten_1',
      environment: 'live',
      actor: { kind: 'operator', id: 'ops' },
    };
    const created = auditEntryOf(
      row(
        'api_key.created',
        { key_id: 'key_9', scopes: ['audit:read'], key_hint: 'ab12', key_hash: 'h' },
        { stream_id: 'key_9', metadata: operator },
      ),
    );
    expect(created).toMatchObject({
      action: 'api_key.created',
      target: { type: 'api_key', id: 'key_9' },
      actor: { kind: 'operator', id: 'ops' },
      client_address: null,
      request_id: null,
      details: { scopes: ['audit:read'], key_hint: 'ab12' },
    });
    expect(JSON.stringify(created)).not.toContain('key_hash');
    const revoked = auditEntryOf(
      row('api_key.revoked', { key_id: 'key_9' }, { stream_id: 'key_9', metadata: operator }),
    );
    expect(revoked).toMatchObject({ action: 'api_key.revoked', details: {} });
  });

  it('maps events that are no audit action to null', () => {
    for (const type of ['webhook_endpoint.degraded', 'delivery.scheduled', 'something.new']) {
      expect(auditEntryOf(row(type, { endpoint_id: 'wh_1' }))).toBeNull();
    }
  });
});

describe('actorOf', () => {
  it('keeps only the known fields of an actor, as recorded before or after ADR 0047', () => {
    expect(actorOf({ actor: { kind: 'api_key', id: 'key_1' } })).toEqual({
      kind: 'api_key',
      id: 'key_1',
    });
    expect(
      actorOf({ actor: { kind: 'access_token', id: 'grt_1', user_id: 'usr_1', client_id: 'c' } }),
    ).toEqual({ kind: 'access_token', id: 'grt_1', user_id: 'usr_1', client_id: 'c' });
    expect(actorOf({})).toEqual({ kind: 'unknown', id: null });
  });
});

describe('changedFieldsOf', () => {
  it('names fields, never values', () => {
    expect(changedFieldsOf({ filter: null, events: ['a'] })).toEqual(['filter', 'events']);
    expect(changedFieldsOf(undefined)).toEqual([]);
  });
});

describe('the audit actions', () => {
  it('are the types the migration indexed', () => {
    expect([...AUDIT_EVENT_TYPES].sort()).toEqual([...AUDIT_TRAIL_INDEXED_TYPES].sort());
  });

  it('are told from other strings', () => {
    expect(AUDIT_ACTIONS.every(isAuditAction)).toBe(true);
    expect(isAuditAction('toString')).toBe(false);
  });
});

describe('auditStatement', () => {
  const base = { tenantId: 'ten_1', environment: 'live' as const, before: null, take: 21 };

  it('binds every value and writes only the audit types as literals', () => {
    const { sql, parameters } = auditStatement({
      ...base,
      action: 'endpoint.updated',
      endpointId: 'wh_1',
      from: recordedAt,
      to: recordedAt,
      before: '99',
    });
    expect(parameters).toEqual([
      'ten_1',
      'live',
      'webhook_endpoint.updated',
      'wh_1',
      recordedAt,
      recordedAt,
      '99',
      21,
    ]);
    expect(sql).toContain(`type IN (${auditTypesLiteral()})`);
    expect(sql).not.toContain('ten_1');
  });

  it('refuses to write anything but an event type into the statement', () => {
    expect(() => auditTypesLiteral(["x'; DROP TABLE events; --"])).toThrow('not an event type');
  });
});
