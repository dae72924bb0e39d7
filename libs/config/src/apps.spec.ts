import {
  loadApiConfig,
  loadAuthConfig,
  loadCliConfig,
  loadCliSecretsConfig,
  loadDeliveryConfig,
  loadNatsConfig,
} from './apps';
import { loadConfig } from './app-config';

const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/svc';
const PRODUCTION_KEY = Buffer.alloc(32, 7).toString('base64');

/** Values that are wrong for a setting only another app reads. */
const BAD = {
  api: { API_PORT: 'eighty', WEBHOOK_REPLAY_LIMIT: '0', AUTH_JWKS_URL: 'not a url' },
  auth: { AUTH_PORT: 'x', AUTH_SIGN_IN_THROTTLE_WINDOW: 'soon', AUTH_TRUSTED_PROXIES: 'banana' },
  delivery: {
    DELIVERY_PORT: 'x',
    DELIVERY_MAX_CONCURRENCY: '0',
    INTAKE_HOT_TENANT_SHARE: '2',
    EVENTS_STREAM: 'no.dots',
  },
};

describe('each app loads only its own sections', () => {
  it('the API: its ports, its proxies, the database, NATS, secrets, webhooks, the attempt timeout, retention, token checks', () => {
    const config = loadApiConfig({ DATABASE_URL, ...BAD.auth, ...BAD.delivery });
    expect(config.ports).toEqual({ api: 8080 });
    expect(config.managementPorts).toEqual({ api: 9080 });
    expect(config.apiClients).toEqual({ trustedProxies: [] });
    expect(config.delivery).toEqual({ timeoutMs: 10_000 });
    expect(config.webhooks).toMatchObject({ replayLimit: 10_000, allowedPrivateCidrs: [] });
    expect(config.auth).toEqual({
      issuer: 'http://localhost:8081',
      audience: 'svc-api',
      jwksUrl: 'http://localhost:8081/.well-known/jwks.json',
    });
    expect(Object.keys(config).sort()).toEqual(
      [
        'apiClients',
        'auth',
        'console',
        'database',
        'delivery',
        'host',
        'http',
        'jetstream',
        'logLevel',
        'managementPorts',
        'nats',
        'nodeEnv',
        'ports',
        'retention',
        'secrets',
        'tracing',
        'webhooks',
      ].sort(),
    );
    expect(config.jetstream).toEqual({ subjectRoot: 'svc' });
  });

  it('the API still fails on a bad value of its own, naming it', () => {
    expect(() => loadApiConfig({ DATABASE_URL, ...BAD.api })).toThrow(
      /API_PORT[\s\S]*WEBHOOK_REPLAY_LIMIT[\s\S]*AUTH_JWKS_URL/,
    );
  });

  it('the auth app: no encryption key in production, no JetStream, no delivery settings', () => {
    const config = loadAuthConfig({
      DATABASE_URL,
      NODE_ENV: 'production',
      ...BAD.api,
      ...BAD.delivery,
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: 'banana',
      DELIVERY_DATA_PARTITION_WIDTH: '1s',
    });
    expect(config.ports).toEqual({ auth: 8081 });
    expect(config.auth.signInThrottle.windowSeconds).toBe(900);
    expect(config).not.toHaveProperty('secrets');
    expect(config).not.toHaveProperty('delivery');
    expect(config).not.toHaveProperty('webhooks');
    expect(config).not.toHaveProperty('retention');
    expect(config.auth).not.toHaveProperty('jwksUrl');
  });

  it('the auth app requires what it reads: DATABASE_URL, its throttle, its proxies', () => {
    expect(() => loadAuthConfig({})).toThrow(/DATABASE_URL: is required/);
    for (const pattern of [/AUTH_PORT/, /AUTH_SIGN_IN_THROTTLE_WINDOW/, /"banana" is not a CIDR/]) {
      expect(() => loadAuthConfig({ DATABASE_URL, ...BAD.auth })).toThrow(pattern);
    }
  });

  it('the delivery engine: its port, JetStream, the whole delivery section; nothing of the auth app', () => {
    const config = loadDeliveryConfig({
      DATABASE_URL,
      SECRET_ENCRYPTION_KEY: PRODUCTION_KEY,
      NODE_ENV: 'production',
      ...BAD.api,
      ...BAD.auth,
      AUTH_ISSUER: 'not a url',
      AUTH_SIGNING_KEYS: '[]',
    });
    expect(config.ports).toEqual({ delivery: 8082 });
    expect(config).not.toHaveProperty('managementPorts');
    expect(config).not.toHaveProperty('auth');
    expect(config.delivery).toMatchObject({ timeoutMs: 10_000, maxConcurrency: 256 });
    expect(config.delivery.fairness.maxLanes).toBe(16);
    expect(config.jetstream).toMatchObject({ subjectRoot: 'svc', consumer: 'svc-delivery' });
    expect(config.webhooks).toEqual({ allowedPrivateCidrs: [] });
    expect(config.secrets).toEqual({
      encryptionKeys: [PRODUCTION_KEY],
      usingDevelopmentKey: false,
    });
  });

  it('the delivery engine, like the API, needs an encryption key in production', () => {
    for (const load of [loadDeliveryConfig, loadApiConfig]) {
      expect(() => load({ DATABASE_URL, NODE_ENV: 'production' })).toThrow(
        /SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production/,
      );
    }
  });

  it('the CLI: the database and retention only; its NATS commands not even the database', () => {
    const config = loadCliConfig({ DATABASE_URL, ...BAD.api, ...BAD.auth, ...BAD.delivery });
    expect(config).toEqual({
      nodeEnv: 'development',
      database: { url: DATABASE_URL, poolSize: 10 },
      retention: { retentionMs: 30 * 86_400_000, partitionWidthMs: 86_400_000 },
    });
    expect(loadNatsConfig({ NATS_SUBJECT_ROOT: 'staging.svc', DATABASE_URL: 'mysql://x' })).toEqual(
      { nats: { servers: ['nats://127.0.0.1:4222'] }, subjectRoot: 'staging.svc' },
    );
  });

  it("the CLI's key commands: the database and the encryption keys, required in production", () => {
    const config = loadCliSecretsConfig({
      DATABASE_URL,
      SECRET_ENCRYPTION_KEY: PRODUCTION_KEY,
      ...BAD.api,
      ...BAD.delivery,
    });
    expect(Object.keys(config).sort()).toEqual(['database', 'nodeEnv', 'secrets']);
    expect(config.secrets).toEqual({
      encryptionKeys: [PRODUCTION_KEY],
      usingDevelopmentKey: false,
    });
    expect(() => loadCliSecretsConfig({ DATABASE_URL, NODE_ENV: 'production' })).toThrow(
      /SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production/,
    );
    // The other commands still run in production without it.
    expect(() => loadCliConfig({ DATABASE_URL, NODE_ENV: 'production' })).not.toThrow();
  });

  it('the whole configuration is every app at once, and so fails on any of their bad values', () => {
    const whole = loadConfig({ DATABASE_URL });
    expect(whole).toMatchObject(loadApiConfig({ DATABASE_URL }));
    expect(whole).toMatchObject(loadAuthConfig({ DATABASE_URL }));
    expect(whole).toMatchObject(loadDeliveryConfig({ DATABASE_URL }));
    for (const bad of [BAD.api, BAD.auth, BAD.delivery]) {
      expect(() => loadConfig({ DATABASE_URL, ...bad })).toThrow(/Invalid configuration/);
    }
  });
});
