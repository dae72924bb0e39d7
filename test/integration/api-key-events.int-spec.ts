import { API_KEY_EVENT_TYPES, ApiKeysService } from '@svc/identity';
import { TenantsService } from '@svc/tenants';
import { suiteDatabase } from './delivery-tables';

/**
 * API keys leave events in the log (ADR 0047: the tenant's audit trail reads them): created and
 * revoked, each in the transaction that writes the key's row, naming the tenant, its environment
 * and the operator, and never the key or its hash.
 */
describe('API key events', () => {
  let db: Awaited<ReturnType<typeof suiteDatabase>>;
  let keys: ApiKeysService;
  let tenantId: string;

  beforeAll(async () => {
    db = await suiteDatabase();
    keys = new ApiKeysService(db.dataSource);
    tenantId = (await new TenantsService(db.dataSource).create('audited')).id;
  });
  afterAll(() => db.close());

  const eventsOf = (keyId: string) =>
    db.dataSource.query<
      { type: string; version: number; data: Record<string, unknown>; metadata: object }[]
    >('SELECT type, version, data, metadata FROM events WHERE stream_id = $1 ORDER BY version', [
      keyId,
    ]);

  it('records a key created, with its hint and scopes, and never the key', async () => {
    const { record, key } = await keys.create({
      tenantId,
      scopes: ['alerts:read'],
      environment: 'test',
      actor: { kind: 'operator', id: 'alice' },
    });
    const events = await eventsOf(record.id);
    expect(events).toEqual([
      {
        type: API_KEY_EVENT_TYPES.created,
        version: 1,
        data: {
          key_id: record.id,
          tenant_id: tenantId,
          environment: 'test',
          scopes: ['alerts:read'],
          key_hint: record.keyHint,
          created_at: expect.any(String),
        },
        metadata: {
          tenant_id: tenantId,
          environment: 'test',
          actor: { kind: 'operator', id: 'alice' },
        },
      },
    ]);
    const written = JSON.stringify(events);
    expect(written).not.toContain(key);
    expect(written).not.toContain(record.keyHash);
  });

  it('records a revocation once, when the key was active', async () => {
    const { record } = await keys.create({
      tenantId,
      scopes: ['alerts:read'],
      environment: 'live',
    });
    expect(await keys.revoke(record.id)).toBe(true);
    expect(await keys.revoke(record.id)).toBe(false);
    const events = await eventsOf(record.id);
    expect(events.map((event) => [event.type, event.version])).toEqual([
      [API_KEY_EVENT_TYPES.created, 1],
      [API_KEY_EVENT_TYPES.revoked, 2],
    ]);
    expect(events[1].data).toEqual({
      key_id: record.id,
      tenant_id: tenantId,
      revoked_at: expect.any(String),
    });
    expect(events[1].metadata).toMatchObject({ actor: { kind: 'operator' } });
  });

  it('revokes a key made before its events existed, starting its stream', async () => {
    // A row as keys were written before this change: no event.
    const keyId = 'key_01j0000000000000000000before';
    await db.dataSource.query(
      `INSERT INTO api_keys (id, tenant_id, environment, key_hash, key_hint, scopes)
       VALUES ($1, $2, 'live', 'hash-of-an-old-key', 'ab12', '{alerts:read}')`,
      [keyId, tenantId],
    );
    expect(await keys.revoke(keyId)).toBe(true);
    expect((await eventsOf(keyId)).map((event) => [event.type, event.version])).toEqual([
      [API_KEY_EVENT_TYPES.revoked, 1],
    ]);
  });
});
