import { createLogger, NestPinoLogger } from '@svc/observability';
import { chooseLogFormat, readableDestination } from './readable-logs';

describe('the log format of npm start', () => {
  it.each([
    [[], true, 'readable'],
    [[], false, 'json'],
    [['--log-format=json'], true, 'json'],
    [['--log-format=readable'], false, 'readable'],
    [['--log-format=json', '--log-format=readable'], false, 'readable'],
  ])('args %p, stdout a terminal: %p -> %p', (argv, terminal, format) => {
    expect(chooseLogFormat(argv, terminal)).toBe(format);
  });

  it('names the flag of a format it does not know', () => {
    expect(() => chooseLogFormat(['--log-format=yaml'], true)).toThrow(
      '--log-format=yaml: the log format is readable or json',
    );
  });
});

describe('readable log lines', () => {
  const written: string[] = [];
  const output = { write: (text: string) => written.push(text) };
  beforeEach(() => (written.length = 0));

  const text = () => written.join('');

  it('writes one line per entry: time, level, app, context, message, then its fields', () => {
    const logger = createLogger(
      'api',
      'info',
      readableDestination({ output, colorize: false, level: 'info' }),
    );
    logger.info({ context: 'http', status: 201, route: '/v1/webhooks' }, 'request');
    logger.warn('SECRET_ENCRYPTION_KEY is not set: using the public development key.');

    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: api \(http\): request \{"status":201,"route":"\/v1\/webhooks"\}\n$/,
    );
    expect(written[1]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: api: SECRET_ENCRYPTION_KEY is not set: using the public development key\.\n$/,
    );
    expect(text()).not.toMatch(/^\{/m);
  });

  it('shows an error with its stack', () => {
    const logger = createLogger(
      'delivery',
      'info',
      readableDestination({ output, colorize: false, level: 'info' }),
    );
    logger.error({ err: new Error('PostgreSQL is gone') }, 'recording failed');
    expect(text()).toMatch(/ERROR: delivery: recording failed/);
    expect(text()).toMatch(/Error: PostgreSQL is gone\n\s+at /);
  });

  it("leaves out Nest's assembly lines at info, keeps its warnings and errors", () => {
    const logger = createLogger(
      'auth',
      'info',
      readableDestination({ output, colorize: false, level: 'info' }),
    );
    const nest = new NestPinoLogger(logger);
    nest.log('AuthModule dependencies initialized', 'InstanceLoader');
    nest.log('Mapped {/oauth/token, POST} route', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    nest.warn('a deprecated option', 'NestFactory');
    nest.log('auth listening', 'ServiceRunner');
    expect(written).toHaveLength(2);
    expect(written[0]).toMatch(/WARN: auth \(NestFactory\): a deprecated option/);
    expect(written[1]).toMatch(/INFO: auth \(ServiceRunner\): auth listening/);
  });

  it('keeps them at LOG_LEVEL=debug', () => {
    const logger = createLogger(
      'auth',
      'debug',
      readableDestination({ output, colorize: false, level: 'debug' }),
    );
    new NestPinoLogger(logger).log('AuthModule dependencies initialized', 'InstanceLoader');
    expect(text()).toMatch(/INFO: auth \(InstanceLoader\): AuthModule dependencies initialized/);
  });

  it('colours the level at a terminal that takes colours', () => {
    const logger = createLogger(
      'api',
      'info',
      readableDestination({ output, colorize: true, level: 'info' }),
    );
    logger.error('boom');
    expect(text()).toContain('\u001b[31mERROR\u001b[39m');
  });
});
