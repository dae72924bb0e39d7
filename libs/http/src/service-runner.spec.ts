import { runService } from './service-runner';

describe('runService', () => {
  it('stops start-up in production without an encryption key, naming the variable, before creating the app', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(((code: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const create = jest.fn();
    try {
      await expect(
        runService(
          { name: 'api', port: () => 0, create },
          { NODE_ENV: 'production', DATABASE_URL: 'postgres://postgres@127.0.0.1/svc' },
        ),
      ).rejects.toThrow('exit 78');
      expect(stderr).toHaveBeenCalledWith(
        expect.stringMatching(
          /^api: Invalid configuration:\n.*SECRET_ENCRYPTION_KEY: is required when NODE_ENV=production/,
        ),
      );
      expect(create).not.toHaveBeenCalled();
    } finally {
      exit.mockRestore();
      stderr.mockRestore();
    }
  });
});
