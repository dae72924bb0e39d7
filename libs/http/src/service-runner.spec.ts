import { ConfigError, loadApiConfig, loadAuthConfig } from '@svc/config';
import { SigningKeysError } from '@svc/oauth';
import { runService } from './service-runner';

const PRODUCTION = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://postgres@127.0.0.1/svc',
  SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  LOG_LEVEL: 'silent',
};

describe('runService', () => {
  let exit: jest.SpyInstance;
  let stderr: jest.SpyInstance;
  beforeEach(() => {
    exit = jest.spyOn(process, 'exit').mockImplementation(((code: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    exit.mockRestore();
    stderr.mockRestore();
  });

  it('stops start-up in production without an encryption key, naming the variable, before creating the app', async () => {
    const create = jest.fn();
    await expect(
      runService(
        { name: 'api', load: loadApiConfig, port: () => 0, managementPort: () => 0, create },
        { NODE_ENV: 'production', DATABASE_URL: 'postgres://postgres@127.0.0.1/svc' },
      ),
    ).rejects.toThrow('exit 78');
    expect(stderr).toHaveBeenCalledWith(
      expect.stringMatching(
        /^api: Invalid configuration:\n.*SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production/,
      ),
    );
    expect(create).not.toHaveBeenCalled();
  });

  it('exits 78, naming the variable, when the app itself finds a setting wrong (AUTH_SIGNING_KEYS)', async () => {
    const missingKeys = new SigningKeysError(
      'AUTH_SIGNING_KEYS: is required when NODE_ENV=production',
    );
    expect(missingKeys).toBeInstanceOf(ConfigError);
    const create = jest.fn().mockRejectedValue(missingKeys);
    await expect(
      runService(
        { name: 'auth', load: loadAuthConfig, port: () => 0, managementPort: () => 0, create },
        PRODUCTION,
      ),
    ).rejects.toThrow('exit 78');
    expect(stderr).toHaveBeenCalledWith(
      expect.stringMatching(/^auth: Invalid configuration:\n.*AUTH_SIGNING_KEYS: is required/),
    );
  });
});
