import { choice, setting } from '../kinds';
import { section } from '../section';

export type NodeEnv = 'development' | 'test' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export const NODE_ENV = setting(
  choice(['development', 'test', 'production'], 'development'),
  '`production` makes `SECRET_ENCRYPTION_KEY` and `AUTH_SIGNING_KEYS` mandatory',
);

/** What the process runs as; every loader reads it. */
export const runtime = section({
  name: 'runtime',
  variables: { NODE_ENV },
  build: (values): { nodeEnv: NodeEnv } => ({ nodeEnv: values.NODE_ENV }),
});

export const logging = section({
  name: 'logging',
  variables: {
    LOG_LEVEL: setting(
      choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
      'the least severe level logged',
    ),
  },
  build: (values): { logLevel: LogLevel } => ({ logLevel: values.LOG_LEVEL }),
});
