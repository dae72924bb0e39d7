import { loadConfig } from './app-config';
import { ConfigError } from './config-error';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc' };

describe('loadConfig (every section: npm start and the tests)', () => {
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
    expect(config.auth).toMatchObject({
      issuer: 'http://localhost:8081',
      audience: 'svc-api',
      jwksUrl: 'http://localhost:8081/.well-known/jwks.json',
      signInThrottle: { accountMaxFailures: 5, addressMaxFailures: 20, windowSeconds: 900 },
    });
    expect(config).toMatchObject({ nodeEnv: 'development', logLevel: 'info', host: '0.0.0.0' });
  });

  it('lists every bad value at once, by variable name, across sections', () => {
    try {
      loadConfig({
        DATABASE_URL: 'mysql://x',
        API_PORT: 'eighty',
        SECRET_ENCRYPTION_KEY: 'c2hvcnQ=',
        WEBHOOK_ALLOWED_PRIVATE_CIDRS: '10.0.0.0/8,banana',
        HTTP_REQUEST_TIMEOUT: '5s',
      });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/DATABASE_URL/);
      expect(problems).toMatch(/API_PORT/);
      expect(problems).toMatch(/SECRET_ENCRYPTION_KEY: must be 32 bytes/);
      expect(problems).toMatch(/"banana" is not a CIDR/);
      expect(problems).toMatch(
        /HTTP_HEADERS_TIMEOUT: must not be longer than HTTP_REQUEST_TIMEOUT/,
      );
    }
  });

  it('reports a bad value of a variable several sections read once', () => {
    expect(() => loadConfig({ ...base, AUTH_ISSUER: 'not a url' })).toThrow(ConfigError);
    try {
      loadConfig({ ...base, AUTH_ISSUER: 'not a url', NODE_ENV: 'staging' });
    } catch (error) {
      const problems = (error as ConfigError).problems;
      expect(problems.filter((problem) => problem.startsWith('AUTH_ISSUER:'))).toHaveLength(1);
      expect(problems.filter((problem) => problem.startsWith('NODE_ENV:'))).toHaveLength(1);
    }
  });

  it('requires DATABASE_URL', () => {
    expect(() => loadConfig({})).toThrow(/DATABASE_URL: is required/);
  });
});
