import { CliError } from '../cli-context';
import {
  AuthOptions,
  authFromJson,
  authFromOptions,
  checkAuthOptions,
  headersOf,
  parseHeader,
  parseHeaderLines,
  parseRetrySchedule,
  parseTimeout,
  policyFromOptions,
  readsStandardInput,
  secretFrom,
} from './webhook-auth-options';

/** Runs `work`, expecting a usage error (exit 2) whose message matches. */
function expectUsageError(work: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    work();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(CliError);
  expect((thrown as CliError).exitCode).toBe(2);
  expect((thrown as CliError).message).toMatch(message);
}

describe('parseHeader', () => {
  it('splits at the first colon and trims both sides', () => {
    expect(parseHeader('Authorization: Splunk abc:def', '--header')).toEqual([
      'Authorization',
      'Splunk abc:def',
    ]);
    expect(parseHeader('  X-Key :v ', '--header')).toEqual(['X-Key', 'v']);
    expect(parseHeader('X-Empty:', '--header')).toEqual(['X-Empty', '']);
  });

  it.each(['no colon here', ': value without a name', '   :x', ''])(
    'refuses %j as a usage error naming the option, never quoting the value',
    (text) => {
      expectUsageError(() => parseHeader(text, '--header #2'), /^--header #2: give a header as/);
      try {
        parseHeader(text, '--header #2');
      } catch (error) {
        if (text.trim().length > 1) {
          expect((error as Error).message).not.toContain(text.trim());
        }
      }
    },
  );
});

describe('parseHeaderLines', () => {
  it('reads Name: value lines, skipping blank ones, with CRLF or LF', () => {
    expect(parseHeaderLines('Authorization: Bearer t\r\n\r\nX-Channel: c1\n\n')).toEqual([
      ['Authorization', 'Bearer t'],
      ['X-Channel', 'c1'],
    ]);
  });

  it('names the line that has no colon', () => {
    expectUsageError(() => parseHeaderLines('A: 1\n\nsecret-token\n'), /--header-stdin line 3/);
  });
});

describe('headersOf', () => {
  it('puts --header before --header-stdin in one object', () => {
    expect(headersOf(['X-A: 1'], 'Authorization: Splunk t\n')).toEqual({
      'X-A': '1',
      Authorization: 'Splunk t',
    });
  });

  it('refuses a name given twice exactly, and leaves case variants to the API', () => {
    expectUsageError(() => headersOf(['X-A: 1'], 'X-A: 2'), /header X-A is given twice/);
    expect(headersOf(['X-A: 1', 'x-a: 2'], undefined)).toEqual({ 'X-A': '1', 'x-a': '2' });
  });

  it('refuses no header at all', () => {
    expectUsageError(() => headersOf([], '\n\n'), /no header given/);
  });
});

describe('secretFrom', () => {
  it('drops the one line break a terminal or echo adds, and keeps the rest', () => {
    expect(secretFrom('pa ss\n', '--password-stdin')).toBe('pa ss');
    expect(secretFrom('pass\r\n', '--password-stdin')).toBe('pass');
    expect(secretFrom(' pass \n\n', '--password-stdin')).toBe(' pass \n');
  });

  it.each([undefined, '', '\n'])('refuses empty input %j', (input) => {
    expectUsageError(
      () => secretFrom(input, '--client-secret-stdin'),
      /--client-secret-stdin: .*empty/,
    );
  });
});

describe('checkAuthOptions', () => {
  it.each<[string, AuthOptions]>([
    ['headers inline', { type: 'headers', header: ['X-A: 1'] }],
    ['headers from stdin', { type: 'headers', headerStdin: true }],
    ['basic', { type: 'basic', username: 'svc', passwordStdin: true }],
    [
      'oauth with scope and audience',
      {
        type: 'oauth2_client_credentials',
        tokenUrl: 'https://login.example.com/token',
        clientId: 'c',
        clientSecretStdin: true,
        scope: 's',
        audience: 'a',
      },
    ],
    ['mtls', { type: 'mtls', certificateFile: 'c.pem', privateKeyFile: 'k.pem' }],
    ['none', { type: 'none' }],
    ['a file', { fromFile: 'auth.json' }],
    ['an empty --header list', { type: 'none', header: [] }],
  ])('takes %s', (_, options) => {
    expect(() => checkAuthOptions(options)).not.toThrow();
  });

  it.each<[string, AuthOptions, RegExp]>([
    ['neither --type nor --from-file', {}, /give --type \(headers, basic, .*none\).*--from-file/],
    [
      '--from-file with --type',
      { fromFile: 'a.json', type: 'basic', username: 'u' },
      /--from-file gives the whole auth object: drop --type, --username/,
    ],
    ['basic without a password', { type: 'basic', username: 'u' }, /basic needs --password-stdin/],
    [
      'oauth without its fields',
      { type: 'oauth2_client_credentials', scope: 's' },
      /needs --token-url, --client-id, --client-secret-stdin/,
    ],
    ['mtls without a key', { type: 'mtls', certificateFile: 'c.pem' }, /--private-key-file/],
    ['headers without any', { type: 'headers' }, /--header 'Name: value' or --header-stdin/],
    [
      "another type's option",
      { type: 'basic', username: 'u', passwordStdin: true, header: ['X-A: 1'] },
      /--header: not an option of --type basic \(it takes --username, --password-stdin\)/,
    ],
    [
      'none with options',
      { type: 'none', username: 'u' },
      /--username: not an option of --type none$/,
    ],
  ])('refuses %s as a usage error', (_, options, message) => {
    expectUsageError(() => checkAuthOptions(options), message);
  });
});

describe('readsStandardInput', () => {
  it('is true for each -stdin option and for --from-file -', () => {
    expect(readsStandardInput({ type: 'headers', header: ['X-A: 1'] })).toBe(false);
    expect(readsStandardInput({ type: 'headers', headerStdin: true })).toBe(true);
    expect(readsStandardInput({ type: 'basic', passwordStdin: true })).toBe(true);
    expect(readsStandardInput({ type: 'oauth2_client_credentials', clientSecretStdin: true })).toBe(
      true,
    );
    expect(readsStandardInput({ fromFile: '-' })).toBe(true);
    expect(readsStandardInput({ fromFile: 'auth.json' })).toBe(false);
  });
});

describe('authFromOptions', () => {
  it('builds each type as the API takes it, secrets from standard input', () => {
    expect(
      authFromOptions(
        { type: 'headers', header: ['X-Channel: c1'], headerStdin: true },
        { stdin: 'Authorization: Splunk t\n' },
      ),
    ).toEqual({ type: 'headers', headers: { 'X-Channel': 'c1', Authorization: 'Splunk t' } });
    expect(authFromOptions({ type: 'headers', header: ['X-A: 1'] }, {})).toEqual({
      type: 'headers',
      headers: { 'X-A': '1' },
    });
    expect(
      authFromOptions({ type: 'basic', username: 'svc', passwordStdin: true }, { stdin: 'pw\n' }),
    ).toEqual({ type: 'basic', username: 'svc', password: 'pw' });
    expect(
      authFromOptions(
        {
          type: 'oauth2_client_credentials',
          tokenUrl: 'https://login.example.com/token',
          clientId: 'svc',
          clientSecretStdin: true,
          scope: 'events.write',
        },
        { stdin: 'cs\n' },
      ),
    ).toEqual({
      type: 'oauth2_client_credentials',
      token_url: 'https://login.example.com/token',
      client_id: 'svc',
      client_secret: 'cs',
      scope: 'events.write',
    });
    expect(
      authFromOptions(
        { type: 'mtls', certificateFile: 'c.pem', privateKeyFile: 'k.pem' },
        { certificate: 'CERT PEM', privateKey: 'KEY PEM' },
      ),
    ).toEqual({ type: 'mtls', certificate: 'CERT PEM', private_key: 'KEY PEM' });
    expect(authFromOptions({ type: 'none' }, {})).toBeNull();
  });

  it("passes --from-file's object on as is, and null to remove", () => {
    const auth = { type: 'kerberos', realm: 'X' };
    expect(authFromOptions({ fromFile: 'a.json' }, { fromFile: JSON.stringify(auth) })).toEqual(
      auth,
    );
    expect(authFromOptions({ fromFile: '-' }, { fromFile: 'null\n' })).toBeNull();
  });
});

describe('authFromJson', () => {
  it.each([
    ['{"type":', /--from-file a\.json: not JSON/],
    ['"Splunk abc"', /must be a JSON object/],
    ['[1]', /must be a JSON object/],
  ])('refuses %j as a usage error without quoting it', (text, message) => {
    expectUsageError(() => authFromJson(text, '--from-file a.json'), message);
  });
});

describe('policyFromOptions', () => {
  it('sends each option given, null for each --default-…', () => {
    expect(policyFromOptions({ retrySchedule: '10s, 1m,1h', timeout: '5' })).toEqual({
      retry_schedule: ['10s', '1m', '1h'],
      timeout_seconds: 5,
    });
    expect(policyFromOptions({ defaultRetrySchedule: true, defaultTimeout: true })).toEqual({
      retry_schedule: null,
      timeout_seconds: null,
    });
    expect(policyFromOptions({ timeout: '2.5' })).toEqual({ timeout_seconds: 2.5 });
    // Values the API refuses still go to it: its 400 names the field.
    expect(policyFromOptions({ retrySchedule: '500ms', timeout: '11' })).toEqual({
      retry_schedule: ['500ms'],
      timeout_seconds: 11,
    });
  });

  it.each<[string, Parameters<typeof policyFromOptions>[0], RegExp]>([
    ['nothing', {}, /give --retry-schedule or --default-retry-schedule, --timeout or/],
    ['a schedule and its default', { retrySchedule: '1m', defaultRetrySchedule: true }, /not both/],
    ['a timeout and its default', { timeout: '3', defaultTimeout: true }, /not both/],
    ['an empty entry', { retrySchedule: '10s,,1m' }, /--retry-schedule: give comma-separated/],
    ['a timeout that is no number', { timeout: '5s' }, /--timeout: give a number of seconds/],
  ])('refuses %s as a usage error', (_, options, message) => {
    expectUsageError(() => policyFromOptions(options), message);
  });

  it('parses each part on its own', () => {
    expect(parseRetrySchedule('24h')).toEqual(['24h']);
    expect(parseTimeout(' 10 ')).toBe(10);
  });
});
