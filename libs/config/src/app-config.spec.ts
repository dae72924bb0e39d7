import { ConfigError, loadConfig } from './app-config';

const KEY = Buffer.alloc(32, 7).toString('base64');
const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc' };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config.ports).toEqual({ api: 8080, auth: 8081, delivery: 8082 });
    expect(config.nats.servers).toEqual(['nats://127.0.0.1:4222']);
    expect(config.http.bodyLimitBytes).toBe(65536);
    expect(config.managementPorts).toEqual({ api: 9080, auth: 9081 });
    expect(config.http).toMatchObject({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 1024,
    });
    expect(config.webhooks).toEqual({
      allowedPrivateCidrs: [],
      recoverRedriveLimit: 10_000,
      replayLimit: 10_000,
    });
    expect(config.secrets.usingDevelopmentKey).toBe(true);
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() =>
      loadConfig({ ...base, HTTP_REQUEST_TIMEOUT: '5s', HTTP_HEADERS_TIMEOUT: '10s' }),
    ).toThrow(/HTTP_HEADERS_TIMEOUT/);
  });

  it('refuses to start in production without an encryption key, saying why', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production' })).toThrow(
      /SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production/,
    );
    expect(
      loadConfig({ ...base, NODE_ENV: 'production', SECRET_ENCRYPTION_KEY: KEY }).secrets,
    ).toEqual({
      encryptionKeys: [KEY],
      usingDevelopmentKey: false,
    });
  });

  it('lists every bad value at once, by variable name', () => {
    try {
      loadConfig({
        DATABASE_URL: 'mysql://x',
        API_PORT: 'eighty',
        SECRET_ENCRYPTION_KEY: 'c2hvcnQ=',
        WEBHOOK_ALLOWED_PRIVATE_CIDRS: '10.0.0.0/8,banana',
      });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/DATABASE_URL/);
      expect(problems).toMatch(/API_PORT/);
      expect(problems).toMatch(/SECRET_ENCRYPTION_KEY: must be 32 bytes/);
      expect(problems).toMatch(/"banana" is not a CIDR/);
    }
  });

  it('reads the cap of one recover call and refuses one below 1', () => {
    expect(loadConfig({ ...base, WEBHOOK_RECOVER_REDRIVE_LIMIT: '500' }).webhooks).toMatchObject({
      recoverRedriveLimit: 500,
    });
    expect(() => loadConfig({ ...base, WEBHOOK_RECOVER_REDRIVE_LIMIT: '0' })).toThrow(
      /WEBHOOK_RECOVER_REDRIVE_LIMIT/,
    );
  });

  it('reads the cap of one replay call and refuses one below 1', () => {
    expect(loadConfig({ ...base, WEBHOOK_REPLAY_LIMIT: '250' }).webhooks).toMatchObject({
      replayLimit: 250,
    });
    expect(() => loadConfig({ ...base, WEBHOOK_REPLAY_LIMIT: '0' })).toThrow(
      /WEBHOOK_REPLAY_LIMIT/,
    );
  });

  it('requires DATABASE_URL', () => {
    expect(() => loadConfig({})).toThrow(/DATABASE_URL: is required/);
  });

  it('keeps previous keys after the active one, for rotation', () => {
    const previous = Buffer.alloc(32, 9).toString('base64');
    expect(
      loadConfig({ ...base, SECRET_ENCRYPTION_KEY: KEY, SECRET_ENCRYPTION_PREVIOUS_KEYS: previous })
        .secrets.encryptionKeys,
    ).toEqual([KEY, previous]);
  });
});

describe('delivery and JetStream settings', () => {
  it('defaults to the spec: 10 s timeout, 5 attempts, delays 5 s, 30 s, 5 min, 30 min, 2 h', () => {
    const { delivery, jetstream } = loadConfig(base);
    expect(delivery.timeoutMs).toBe(10_000);
    expect(delivery.maxAttempts).toBe(5);
    expect(delivery.retryScheduleMs).toEqual([5_000, 30_000, 300_000, 1_800_000, 7_200_000]);
    expect(jetstream).toMatchObject({
      eventsStream: 'SVC_EVENTS',
      consumer: 'svc-delivery',
      maxAgeMs: 7 * 86_400_000,
    });
  });

  it('reads a shortened schedule for tests and refuses what is not a duration', () => {
    expect(
      loadConfig({ ...base, DELIVERY_RETRY_SCHEDULE: '100ms, 200ms,1s' }).delivery.retryScheduleMs,
    ).toEqual([100, 200, 1000]);
    expect(() => loadConfig({ ...base, DELIVERY_RETRY_SCHEDULE: '5s,soon' })).toThrow(
      /"soon" is not a duration/,
    );
    expect(() => loadConfig({ ...base, DELIVERY_TIMEOUT: '10' })).toThrow(/DELIVERY_TIMEOUT/);
  });
});

describe('retention of delivery data (ADR 0023)', () => {
  it('keeps 30 days in day-wide partitions by default', () => {
    expect(loadConfig(base).retention).toEqual({
      retentionMs: 30 * 86_400_000,
      partitionWidthMs: 86_400_000,
    });
  });

  it('reads a shortened retention (the storage benchmark: minutes)', () => {
    expect(
      loadConfig({ ...base, DELIVERY_DATA_RETENTION: '5m', DELIVERY_DATA_PARTITION_WIDTH: '1m' })
        .retention,
    ).toEqual({ retentionMs: 300_000, partitionWidthMs: 60_000 });
  });

  it('refuses partitions wider than retention, or narrower than a minute', () => {
    expect(() =>
      loadConfig({ ...base, DELIVERY_DATA_RETENTION: '1h', DELIVERY_DATA_PARTITION_WIDTH: '2h' }),
    ).toThrow(/DELIVERY_DATA_PARTITION_WIDTH/);
    expect(() => loadConfig({ ...base, DELIVERY_DATA_PARTITION_WIDTH: '10s' })).toThrow(
      /DELIVERY_DATA_PARTITION_WIDTH/,
    );
  });
});

describe('fairness between tenants (ADR 0032)', () => {
  it('defaults to 16 lanes, a tenant hot at half the intake, lanes holding at most 75 % of the concurrency', () => {
    expect(loadConfig(base).delivery.fairness).toEqual({
      maxLanes: 16,
      hotTenantShare: 0.5,
      laneConcurrencyShare: 0.75,
      tenantWeights: {},
    });
  });

  it('reads weights per tenant, and 0 lanes to turn lanes off', () => {
    expect(
      loadConfig({
        ...base,
        INTAKE_LANES_MAX: '0',
        INTAKE_HOT_TENANT_SHARE: '0.8',
        INTAKE_LANE_CONCURRENCY_SHARE: '0.5',
        TENANT_WEIGHTS: 'ten_x=2, ten_y = 0.5',
      }).delivery.fairness,
    ).toEqual({
      maxLanes: 0,
      hotTenantShare: 0.8,
      laneConcurrencyShare: 0.5,
      tenantWeights: { ten_x: 2, ten_y: 0.5 },
    });
  });

  it('refuses shares outside (0, 1] and weights that are not tenant_id=weight above 0', () => {
    expect(() => loadConfig({ ...base, INTAKE_HOT_TENANT_SHARE: '0' })).toThrow(
      /INTAKE_HOT_TENANT_SHARE: must be more than 0/,
    );
    expect(() => loadConfig({ ...base, INTAKE_LANE_CONCURRENCY_SHARE: '1.5' })).toThrow(
      /INTAKE_LANE_CONCURRENCY_SHARE: must be at most 1/,
    );
    for (const bad of ['ten_x', 'x=2', 'ten_x=0', 'ten_x=-1', 'ten_x=101', 'ten_X=1']) {
      expect(() => loadConfig({ ...base, TENANT_WEIGHTS: bad })).toThrow(/TENANT_WEIGHTS/);
    }
    expect(() => loadConfig({ ...base, TENANT_WEIGHTS: 'ten_x=1,ten_x=2' })).toThrow(
      /ten_x is given twice/,
    );
  });
});
