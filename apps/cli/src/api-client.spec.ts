import { apiSettingsOf, describeProblem } from './api-client';
import { CliError, CliIo } from './cli-context';

const io = (env: NodeJS.ProcessEnv): CliIo => ({
  stdout: () => undefined,
  stderr: () => undefined,
  stdin: () => Promise.resolve(''),
  // production: the local stack file is never read, so the test does not depend on the checkout
  env: { NODE_ENV: 'production', ...env },
  cwd: '/nonexistent',
  untilStopped: () => Promise.resolve(),
});

describe('describeProblem', () => {
  it("lists a 400's problems, one field and detail a line", () => {
    const body = JSON.stringify({
      type: 'urn:svc:problem:invalid-request',
      title: 'The request is not valid',
      status: 400,
      detail: 'auth.headers.Host: is set by the engine',
      errors: [
        { field: 'auth.headers.Host', detail: 'is set by the engine' },
        { field: 'timeout_seconds', detail: 'must be at most 10' },
      ],
    });
    expect(describeProblem(400, body)).toBe(
      [
        '400 The request is not valid',
        '  auth.headers.Host: is set by the engine',
        '  timeout_seconds: must be at most 10',
      ].join('\n'),
    );
  });

  it('copes with a problem whose members are not strings', () => {
    expect(describeProblem(400, JSON.stringify({ errors: [{ field: 3 }, null] }))).toBe(
      ['400 the request is not valid', '  (body): is not valid', '  (body): is not valid'].join(
        '\n',
      ),
    );
    expect(describeProblem(500, 'null')).toBe('500 null');
  });

  it('gives the detail of any other problem, and the start of a body that is not JSON', () => {
    expect(
      describeProblem(404, JSON.stringify({ title: 'Not Found', detail: 'no endpoint wh_1' })),
    ).toBe('404 no endpoint wh_1');
    expect(describeProblem(403, JSON.stringify({ title: 'Forbidden' }))).toBe('403 Forbidden');
    expect(describeProblem(502, '<html>bad gateway</html>')).toBe('502 <html>bad gateway</html>');
    expect(describeProblem(500, 'x'.repeat(500))).toHaveLength(204);
  });
});

describe('apiSettingsOf', () => {
  it('takes the options first, then SVC_API_KEY and SVC_API_URL, without a trailing slash', () => {
    expect(
      apiSettingsOf({ apiKey: 'k1', apiUrl: 'http://a:1/' }, io({ SVC_API_KEY: 'k2' })),
    ).toEqual({ apiKey: 'k1', apiUrl: 'http://a:1' });
    expect(apiSettingsOf({}, io({ SVC_API_KEY: 'k2', SVC_API_URL: 'http://b:2' }))).toEqual({
      apiKey: 'k2',
      apiUrl: 'http://b:2',
    });
    expect(apiSettingsOf({}, io({ SVC_API_KEY: 'k2' })).apiUrl).toBe('http://localhost:8080');
  });

  it('makes no key a usage error', () => {
    expect(() => apiSettingsOf({}, io({}))).toThrow(
      new CliError('give an API key with webhooks:manage: --api-key or SVC_API_KEY', 2),
    );
  });
});
